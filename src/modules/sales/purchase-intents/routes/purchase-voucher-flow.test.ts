import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Address, getAddress, type Hex } from 'viem';
import { assertError } from '../../../../../test/assertions.ts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { activeHolder, createListing, randomAddress } from '../../../../../test/support/sales.ts';
import { findItemRow, insertItems } from '../../../../../test/support/token-requests.ts';
import {
  eventsFor,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../../../../test/support/webhook-receiver.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../../db/enums.ts';
import type { CollectionRow } from '../../../../db/schema.ts';
import { watchNetworkVouchers } from '../../../tokens/mint-vouchers/voucher-watch.service.ts';
import { expireDuePurchaseIntents } from '../purchase-intents.service.ts';

const signatureErc721 = platformContracts.SignatureERC721;
const PRICE = 50_000_000_000_000_000n;
const FEE_BPS = 500n;

interface VoucherData {
  signature: string;
  voucher: Record<string, string>;
}

describe('a MINT_VOUCHER sale on a real chain: the buyer mints with the voucher', () => {
  let flow: FlowTest;
  let address: Address;
  let collection: CollectionRow;
  let payout: Address;
  let nextTokenId = 1n;
  let receiver: WebhookReceiver;
  let webhookId: string;
  before(async () => {
    flow = await setupFlowTest({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    receiver = await startWebhookReceiver();
    const subscribed = await flow.env.call('POST', '/v1/webhooks', {
      token: flow.admin.token,
      body: {
        url: receiver.url,
        events: WEBHOOK_EVENT_TYPES.filter(
          (t) => t.startsWith('listing.') || t.startsWith('purchase_intent.'),
        ),
      },
    });
    assert.equal(subscribed.statusCode, 201, subscribed.body);
    webhookId = subscribed.json().id;
    receiver.secrets = [subscribed.json().secret];
    ({ address, collection } = await flow.deployCollection('ERC721', { variant: 'SignatureERC721' }));
    payout = randomAddress();
    await flow.env.database.db
      .updateTable('organizations')
      .set({ payout_address: payout, platform_sale_fee: Number(FEE_BPS) })
      .where('id', '=', flow.organizationId)
      .execute();
  });
  after(async () => {
    await flow?.close();
    await receiver?.close();
  });
  const db = () => flow.env.database.db;
  /** The sales events written for the endpoint about `resourceId`, in the order they happened. */
  const events = (resourceId: string) => eventsFor(db(), webhookId, resourceId);
  const typesOf = async (resourceId: string) => (await events(resourceId)).map((e) => e.type);

  const listItem = async () => {
    const [item] = await insertItems(db(), 1, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: nextTokenId++,
    });
    const listing = await createListing(flow.env, flow.admin.token, {
      item_id: item!.id,
      currency: 'ETH',
      price: PRICE.toString(),
      payment_providers: ['MINT_VOUCHER'],
    });
    return { item: item!, listing };
  };
  const buy = (listingId: string, buyer: Address) =>
    flow.env.call('POST', '/v1/public/purchase-intents', {
      body: { listing_id: listingId, quantity: 1, provider: 'MINT_VOUCHER', buyer: { eth_address: buyer } },
      ip: freshIp(),
    });
  const mintWith = (wallet: number, data: VoucherData) =>
    flow.chain.wallet(wallet).writeContract({
      address,
      abi: signatureErc721.abi,
      functionName: 'mintWithVoucher',
      args: [
        {
          minter: getAddress(data.voucher.minter ?? flow.chain.wallet(wallet).account.address),
          tokenId: BigInt(data.voucher.token_id!),
          quantity: BigInt(data.voucher.quantity!),
          price: BigInt(data.voucher.price!),
          currency: getAddress(data.voucher.currency!),
          netRecipient: getAddress(data.voucher.net_recipient!),
          feeRecipient: getAddress(data.voucher.initial_recipient!),
          feeAmount: BigInt(data.voucher.initial_recipient_amount!),
          nonce: BigInt(data.voucher.nonce!),
          expiry: BigInt(data.voucher.expiry!),
        },
        data.signature as Hex,
      ],
      value: BigInt(data.voucher.price!),
    });
  const intentOf = async (id: string) =>
    (await flow.env.call('GET', `/v1/purchase-intents/${id}`, { token: flow.admin.token })).json();

  it('intent → voucher → the buyer redeems: payout and fee rise by the split, CONFIRMED, COMPLETED, item MINTED', async () => {
    const { item, listing } = await listItem();
    const buyer = flow.chain.wallet(5).account.address;
    const created = await buy(listing.id, buyer);
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.equal(body.status, 'PENDING');
    assert.equal(body.fulfillment_method, 'VOUCHER');
    const data = body.data as VoucherData & { contract: string; minter: string; network_id: number };
    assert.equal(getAddress(data.contract), getAddress(address));
    assert.equal(data.minter, buyer);
    assert.equal(data.network_id, flow.networkId);
    const fee = (PRICE * FEE_BPS) / 10_000n;
    assert.equal(data.voucher.price, PRICE.toString());
    assert.equal(data.voucher.initial_recipient_amount, fee.toString());
    assert.equal(getAddress(data.voucher.net_recipient!), payout);
    assert.equal(data.voucher.token_id, item.token_id);
    assert.equal(Number(data.voucher.expiry), Math.floor(new Date(body.expiration).getTime() / 1000));
    assert.deepEqual(await activeHolder(flow.env, item.id), { holder_id: body.id, kind: 'PURCHASE_INTENT' });
    assertError(await buy(listing.id, randomAddress()), 422, 'INSUFFICIENT_SUPPLY');

    const feeRecipient = getAddress(data.voucher.initial_recipient!);
    const balance = (who: Address) => flow.chain.publicClient.getBalance({ address: who });
    const [payoutBefore, feeBefore] = [await balance(payout), await balance(feeRecipient)];
    await flow.chain.mined(mintWith(5, { ...data, voucher: { ...data.voucher, minter: buyer } }));
    await watchNetworkVouchers(db(), flow.env.ctx, flow.env.ctx.ports.voucherHolders, flow.networkId);
    const confirmed = await flow.until(async () => {
      const intent = await intentOf(body.id);
      return intent.status === 'CONFIRMED' ? intent : undefined;
    }, 'the redemption to confirm the intent');
    assert.equal(confirmed.fulfillment_status, 'COMPLETED');
    assert.equal((await balance(payout)) - payoutBefore, PRICE - fee);
    assert.equal((await balance(feeRecipient)) - feeBefore, fee);
    const owner = await flow.chain.publicClient.readContract({
      address,
      abi: signatureErc721.abi,
      functionName: 'ownerOf',
      args: [BigInt(item.token_id!)],
    });
    assert.equal(owner, buyer);
    const row = await findItemRow(db(), item.id);
    assert.equal(row.token_status, 'MINTED');
    assert.equal(await activeHolder(flow.env, item.id), undefined);
    const after = (
      await flow.env.call('GET', `/v1/listings/${listing.id}`, { token: flow.admin.token })
    ).json();
    assert.equal(after.quantity_remaining, 0);
    assert.equal(after.status, 'COMPLETE');
    // The redemption seen again by the watcher emits nothing more.
    await watchNetworkVouchers(db(), flow.env.ctx, flow.env.ctx.ports.voucherHolders, flow.networkId);
    const sent = await events(body.id);
    assert.deepEqual(
      sent.map((e) => e.type),
      ['purchase_intent.created', 'purchase_intent.confirmed', 'purchase_intent.fulfilled'],
    );
    assert.deepEqual(sent[0]!.data.item_ids, [item.id], 'created with the voucher item assigned');
    assert.equal(sent[1]!.data.status, 'CONFIRMED');
    assert.deepEqual(sent[2]!.data, await intentOf(body.id));
    const listed = await events(listing.id);
    assert.deepEqual(
      listed.map((e) => e.type),
      ['listing.created', 'listing.completed'],
    );
    assert.deepEqual(listed[1]!.data, after);
  });

  it('a buyer cancelling keeps the voucher item held until the voucher ends; its end frees the unit', async () => {
    const { item, listing } = await listItem();
    const created = await buy(listing.id, randomAddress());
    assert.equal(created.statusCode, 201, created.body);
    const { id, client_token: token } = created.json();
    const cancelled = await flow.env.call('DELETE', `/v1/public/purchase-intents/${id}`, {
      headers: { 'x-client-token': token },
    });
    assert.equal(cancelled.statusCode, 204, cancelled.body);
    assert.equal((await intentOf(id)).status, 'CANCELLED');
    assert.deepEqual(await activeHolder(flow.env, item.id), { holder_id: id, kind: 'PURCHASE_INTENT' });
    assertError(await buy(listing.id, randomAddress()), 422, 'INSUFFICIENT_SUPPLY');
    const voucher = await db()
      .selectFrom('mint_vouchers')
      .selectAll()
      .where('holder_id', '=', id)
      .executeTakeFirstOrThrow();
    await db()
      .transaction()
      .execute((tx) => flow.env.ctx.ports.voucherHolders.PURCHASE_INTENT.ended(tx, flow.env.ctx, voucher));
    assert.deepEqual(await activeHolder(flow.env, item.id), { holder_id: listing.id, kind: 'LISTING' });
    await db()
      .transaction()
      .execute((tx) => flow.env.ctx.ports.voucherHolders.PURCHASE_INTENT.ended(tx, flow.env.ctx, voucher));
    assert.deepEqual(await typesOf(id), ['purchase_intent.created'], 'a cancelled intent does not expire');
    const again = await buy(listing.id, randomAddress());
    assert.equal(again.statusCode, 201, again.body);
  });

  it('a buyer who cancels and then redeems the voucher anyway leaves the intent UNRESOLVED, said once', async () => {
    const { item, listing } = await listItem();
    const buyer = flow.chain.wallet(6).account.address;
    const created = await buy(listing.id, buyer);
    assert.equal(created.statusCode, 201, created.body);
    const { id, client_token: token, data } = created.json();
    const cancelled = await flow.env.call('DELETE', `/v1/public/purchase-intents/${id}`, {
      headers: { 'x-client-token': token },
    });
    assert.equal(cancelled.statusCode, 204, cancelled.body);
    // A signed voucher cannot be withdrawn: the chain still takes it.
    await flow.chain.mined(mintWith(6, { ...data, voucher: { ...data.voucher, minter: buyer } }));
    await watchNetworkVouchers(db(), flow.env.ctx, flow.env.ctx.ports.voucherHolders, flow.networkId);
    await watchNetworkVouchers(db(), flow.env.ctx, flow.env.ctx.ports.voucherHolders, flow.networkId);
    const intent = await intentOf(id);
    assert.equal(intent.status, 'UNRESOLVED');
    assert.equal((await findItemRow(db(), item.id)).token_status, 'MINTED');
    assert.deepEqual(await typesOf(id), ['purchase_intent.created', 'purchase_intent.unresolved']);
  });

  it('a PENDING intent whose voucher ends unredeemed is EXPIRED (the expiry job leaves vouchers to their watcher)', async () => {
    const { item, listing } = await listItem();
    const created = await buy(listing.id, randomAddress());
    const id = created.json().id as string;
    await db()
      .updateTable('purchase_intents')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', id)
      .execute();
    assert.equal(
      await db()
        .transaction()
        .execute((tx) => expireDuePurchaseIntents(tx)),
      0,
    );
    assert.equal((await intentOf(id)).status, 'PENDING');
    const voucher = await db()
      .selectFrom('mint_vouchers')
      .selectAll()
      .where('holder_id', '=', id)
      .executeTakeFirstOrThrow();
    await db()
      .transaction()
      .execute((tx) => flow.env.ctx.ports.voucherHolders.PURCHASE_INTENT.ended(tx, flow.env.ctx, voucher));
    assert.equal((await intentOf(id)).status, 'EXPIRED');
    assert.deepEqual(await activeHolder(flow.env, item.id), { holder_id: listing.id, kind: 'LISTING' });
    await db()
      .transaction()
      .execute((tx) => flow.env.ctx.ports.voucherHolders.PURCHASE_INTENT.ended(tx, flow.env.ctx, voucher));
    const sent = await events(id);
    assert.deepEqual(
      sent.map((e) => e.type),
      ['purchase_intent.created', 'purchase_intent.expired'],
    );
    assert.deepEqual(sent[1]!.data, await intentOf(id));
  });

  it('one pending voucher per minter and contract (409), and vouchers sell one unit at a time (400)', async () => {
    const first = await listItem();
    const second = await listItem();
    const buyer = randomAddress();
    assert.equal((await buy(first.listing.id, buyer)).statusCode, 201);
    assertError(await buy(second.listing.id, buyer), 409, 'INVALID_STATE');
    const quantity = await flow.env.call('POST', '/v1/public/purchase-intents', {
      body: {
        listing_id: second.listing.id,
        quantity: 2,
        provider: 'MINT_VOUCHER',
        buyer: { eth_address: randomAddress() },
      },
      ip: freshIp(),
    });
    assertError(quantity, 400, 'VALIDATION_FAILED');
    const hold = await db()
      .selectFrom('listings')
      .select('quantity_held')
      .where('id', '=', second.listing.id)
      .executeTakeFirstOrThrow();
    assert.equal(hold.quantity_held, 0, 'a refused intent holds nothing');
  });
});
