import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Address } from 'viem';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { testPayments } from '../../../../../test/support/payment-sessions.ts';
import { createListing, randomAddress } from '../../../../../test/support/sales.ts';
import { insertItems } from '../../../../../test/support/token-requests.ts';
import { mintWithVoucherArgs } from '../../../../../test/support/vouchers.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import type { MintVoucherData } from '../../../tokens/mint-vouchers/mint-vouchers.schemas.ts';
import { watchNetworkVouchers } from '../../../tokens/mint-vouchers/voucher-watch.service.ts';
import { releaseHold } from '../../listings/listing-sales.service.ts';
import { expireDueIntents } from '../purchase-payments.service.ts';

const { ports } = testPayments('CARD_PROVIDER');

/**
 * A listing's quantity_held is the units of the intents that hold some: PENDING ones, and those
 * cancelled while their signed voucher may still be redeemed (the chain can still take it, so
 * its unit stays held until the voucher ends). Every way a hold ends keeps it so; none clamps.
 */
describe("a listing's held units are the units its intents hold, whatever ends them", () => {
  let flow: FlowTest;
  let listingId: string;
  let contract: Address;
  before(async () => {
    flow = await setupFlowTest({}, { ports });
    const deployed = await flow.deployCollection('ERC721', { variant: 'SignatureERC721' });
    contract = deployed.address;
    const db = flow.env.database.db;
    await insertItems(db, 12, {
      collectionId: deployed.collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    await db
      .updateTable('organizations')
      .set({ payout_address: randomAddress() })
      .where('id', '=', flow.organizationId)
      .execute();
    const listing = await createListing(flow.env, flow.admin.token, {
      collection_id: deployed.collection.id,
      currency: 'ETH',
      price: '1000',
      payment_providers: ['MINT_VOUCHER'],
    });
    listingId = listing.id;
    // The in-memory card provider too (its organization set-up is not what this tests).
    await db
      .updateTable('listings')
      .set({ payment_providers: ['MINT_VOUCHER', 'CARD_PROVIDER'] })
      .where('id', '=', listingId)
      .execute();
  });
  after(() => flow?.close());

  const db = () => flow.env.database.db;
  const card = async () => {
    const answer = await flow.env.call('POST', '/v1/public/purchase-intents', {
      body: {
        listing_id: listingId,
        quantity: 1,
        provider: 'CARD_PROVIDER',
        buyer: { email: 'b@example.test' },
      },
      ip: freshIp(),
    });
    assert.equal(answer.statusCode, 201, answer.body);
    return answer.json() as { id: string; client_token: string };
  };
  const voucher = async (wallet?: number) => {
    const minter = wallet === undefined ? randomAddress() : flow.chain.wallet(wallet).account.address;
    const answer = await flow.env.call('POST', '/v1/public/purchase-intents', {
      body: { listing_id: listingId, quantity: 1, provider: 'MINT_VOUCHER', buyer: { eth_address: minter } },
      ip: freshIp(),
    });
    assert.equal(answer.statusCode, 201, answer.body);
    return answer.json() as { id: string; client_token: string; data: VoucherData };
  };
  const cancelByBuyer = async (intent: { id: string; client_token: string }) => {
    const answer = await flow.env.call('DELETE', `/v1/public/purchase-intents/${intent.id}`, {
      headers: { 'x-client-token': intent.client_token },
    });
    assert.equal(answer.statusCode, 204, answer.body);
  };
  const voucherOf = (intentId: string) =>
    db().selectFrom('mint_vouchers').selectAll().where('holder_id', '=', intentId).executeTakeFirstOrThrow();

  /** quantity_held against the units of the intents that hold some, and the sold counter. */
  const assertHeld = async (held: number, sold: number, step: string) => {
    const listing = await db()
      .selectFrom('listings')
      .select(['quantity_held', 'quantity_sold'])
      .where('id', '=', listingId)
      .executeTakeFirstOrThrow();
    const holding = await sql<{ units: string }>`
      SELECT coalesce(sum(i.quantity), 0)::text AS units FROM purchase_intents i
      WHERE i.listing_id = ${listingId}
        AND (i.status = 'PENDING'
          OR (i.status = 'CANCELLED' AND i.payment_provider = 'MINT_VOUCHER' AND cardinality(i.item_ids) > 0))
    `.execute(db());
    assert.deepEqual(
      { held: listing.quantity_held, sold: listing.quantity_sold, holding: Number(holding.rows[0]!.units) },
      { held, sold, holding: held },
      step,
    );
  };

  it('through expiry, a buyer cancel, a voucher redeemed, a listing cancel and vouchers that end after it', async () => {
    const kept = await card();
    const expiring = await card();
    const cancelled = await card();
    const redeemed = await voucher(7);
    const open = await voucher(8);
    const withdrawn = await voucher();
    await assertHeld(6, 0, 'six intents created');

    await db()
      .updateTable('purchase_intents')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', expiring.id)
      .execute();
    await expireDueIntents(db(), flow.env.ctx);
    await assertHeld(5, 0, 'a card intent expired');

    await cancelByBuyer(cancelled);
    await assertHeld(4, 0, 'a card intent cancelled by its buyer');

    await cancelByBuyer(withdrawn);
    await assertHeld(4, 0, 'a voucher intent cancelled by its buyer keeps its unit: its voucher is signed');

    await redeem(7, redeemed.data);
    await assertHeld(3, 1, 'a voucher redeemed: its unit sold');

    const cancel = await flow.env.call('POST', `/v1/listings/${listingId}/cancel`, {
      token: flow.admin.token,
    });
    assert.equal(cancel.statusCode, 200, cancel.body);
    await assertHeld(2, 1, "the listing cancelled: the card intent's unit released, the vouchers' kept");

    await redeem(8, open.data);
    await assertHeld(1, 2, 'a voucher of the cancelled listing redeemed anyway: UNRESOLVED, its unit sold');
    assert.equal(await intentStatus(open.id), 'UNRESOLVED');

    const ended = await voucherOf(withdrawn.id);
    for (let run = 0; run < 2; run++)
      await db()
        .transaction()
        .execute((tx) => flow.env.ctx.ports.voucherHolders.PURCHASE_INTENT.ended(tx, flow.env.ctx, ended));
    await assertHeld(0, 2, 'the last voucher ended, told twice: its unit released once');
    assert.equal(await intentStatus(kept.id), 'CANCELLED');
  });

  it('fails loudly, changing nothing, when a hold would be released twice', async () => {
    const before = await db()
      .selectFrom('listings')
      .select('quantity_held')
      .where('id', '=', listingId)
      .executeTakeFirstOrThrow();
    await assert.rejects(
      db()
        .transaction()
        .execute((tx) => releaseHold(tx, listingId, before.quantity_held + 1)),
      /a hold ended twice/,
    );
  });

  const intentStatus = async (id: string) =>
    (
      await db()
        .selectFrom('purchase_intents')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).status;

  /** The dev account `wallet` mints with its voucher, and the watcher sees it. */
  const redeem = async (wallet: number, data: VoucherData) => {
    await flow.chain.mined(
      flow.chain.wallet(wallet).writeContract({
        address: contract,
        abi: platformContracts.SignatureERC721.abi,
        functionName: 'mintWithVoucher',
        args: mintWithVoucherArgs(data),
        value: BigInt(data.voucher.price),
      }),
    );
    await flow.until(async () => {
      const { settled } = await watchNetworkVouchers(
        db(),
        flow.env.ctx,
        flow.env.ctx.ports.voucherHolders,
        flow.networkId,
      );
      return settled > 0 ? true : undefined;
    }, 'the watcher to see the redemption');
  };
});

type VoucherData = Pick<MintVoucherData, 'minter' | 'signature' | 'voucher'>;
