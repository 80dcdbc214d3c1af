import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Address } from 'viem';
import { assertError } from '../../../../../test/assertions.ts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { claimClient, claimTokenFromMail, pinFromMail } from '../../../../../test/support/email-claims.ts';
import { activeHolder, createListing, randomAddress } from '../../../../../test/support/sales.ts';
import { findItemRow, insertItems } from '../../../../../test/support/token-requests.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import type { CollectionRow, ItemRow } from '../../../../db/schema.ts';
import { expireDueClaims } from '../../email-claims/email-claims.service.ts';

const erc1155 = platformContracts.FlexibleERC1155;

/**
 * ERC1155 item-level sales delivered by EMAIL: the buyer's units reach it as one email claim whose
 * units stay under the listing's reservation (the listing keeps the item for its other buyers),
 * minted on redeem without being counted against the item's supply a second time.
 */
describe('ERC1155 sales delivered by email claim, on a real chain', () => {
  let flow: FlowTest;
  let buyers = 0;
  before(async () => {
    flow = await setupFlowTest();
  });
  after(() => flow?.close());

  const db = () => flow.env.database.db;
  const claims = () => claimClient(flow.env, freshIp);
  const admin = () => flow.admin.token;
  const newEmail = () => `erc1155-buyer-${++buyers}@example.com`;

  /** A deployed ERC1155 collection with one locked, unminted item of max_supply 10, listed whole. */
  async function listedItem(): Promise<{
    address: Address;
    collection: CollectionRow;
    item: ItemRow;
    listingId: string;
  }> {
    const { address, collection } = await flow.deployCollection('ERC1155');
    const [item] = await insertItems(db(), 1, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
      maxSupply: 10n,
    });
    const listing = await createListing(flow.env, admin(), { item_id: item!.id, max_quantity_per_tx: 5 });
    assert.equal(listing.quantity_listed, 10);
    return { address, collection, item: item!, listingId: listing.id };
  }

  const intentOf = async (id: string) =>
    (await flow.env.call('GET', `/v1/purchase-intents/${id}`, { token: admin() })).json();
  const listingOf = async (id: string) =>
    (await flow.env.call('GET', `/v1/listings/${id}`, { token: admin() })).json();
  const claimOf = async (id: string) =>
    (await flow.env.call('GET', `/v1/email-claims/${id}`, { token: admin() })).json();
  const reservationOf = (itemId: string) =>
    db()
      .selectFrom('item_reservations')
      .select(['holder_id', 'kind', 'quantity'])
      .where('item_id', '=', itemId)
      .where('released_at', 'is', null)
      .executeTakeFirst();

  /** Buys `quantity` units by EMAIL_CLAIM and waits for the worker to mail the claim. */
  async function buyByEmail(listingId: string, quantity: number) {
    const email = newEmail();
    const created = await flow.env.call('POST', '/v1/public/purchase-intents', {
      body: { listing_id: listingId, quantity, provider: 'EMAIL_CLAIM', buyer: { email } },
      ip: freshIp(),
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().fulfillment_method, 'EMAIL');
    const intent = await flow.until(async () => {
      const current = await intentOf(created.json().id);
      return current.fulfillment_status === 'ASSIGNED' ? undefined : current;
    }, 'the worker to deliver the sale');
    assert.equal(intent.fulfillment_status, 'COMPLETED', JSON.stringify(intent));
    assert.equal(intent.item_claim_ids.length, 1);
    return { email, intent, claimId: intent.item_claim_ids[0] as string };
  }

  /** The recipient's journey: link from the mail, PIN, redeem, delivery followed to its end. */
  async function redeem(email: string) {
    const token = await claimTokenFromMail(flow.env, email);
    const verified = await claims().verify(token);
    assert.equal(verified.statusCode, 200, verified.body);
    const recipient = randomAddress();
    const redeemed = await claims().redeem(token, {
      address: recipient,
      pin: await pinFromMail(flow.env, email),
    });
    assert.equal(redeemed.statusCode, 200, redeemed.body);
    const view = await flow.until(async () => {
      const current = (await claims().get(token)).json();
      const state = current.delivery?.state;
      return state === 'COMPLETED' || state === 'FAILED' ? current : undefined;
    }, 'the claim delivery to settle');
    assert.equal(view.delivery.state, 'COMPLETED', JSON.stringify(view));
    return { token, recipient, transactionId: redeemed.json().transaction_id as string };
  }

  const balanceOf = (address: Address, owner: Address, tokenId: string) =>
    flow.chain.publicClient.readContract({
      address,
      abi: erc1155.abi,
      functionName: 'balanceOf',
      args: [owner, BigInt(tokenId)],
    });

  it('mails one claim for the bought units; redeemed with the PIN, exactly those units are minted under the listing', async () => {
    const { address, item, listingId } = await listedItem();
    const { email, claimId } = await buyByEmail(listingId, 3);
    const claim = await claimOf(claimId);
    assert.deepEqual(
      [claim.item_id, claim.quantity, claim.type, claim.active, claim.claimed],
      [item.id, 3, 'PURCHASE', true, false],
    );
    assert.deepEqual(
      await activeHolder(flow.env, item.id),
      { holder_id: listingId, kind: 'LISTING' },
      'the claim holds no reservation: the listing keeps the item',
    );
    assert.equal((await listingOf(listingId)).quantity_remaining, 7);

    const { token, recipient, transactionId } = await redeem(email);
    assert.equal(await balanceOf(address, recipient, item.token_id!), 3n);
    const mints = await db()
      .selectFrom('mint_requests')
      .select(['quantity', 'state', 'transaction_id'])
      .where('item_id', '=', item.id)
      .execute();
    assert.deepEqual(mints, [{ quantity: '3', state: 'COMPLETED', transaction_id: transactionId }]);
    const row = await findItemRow(db(), item.id);
    assert.deepEqual(
      [row.token_status, row.minted_supply, row.held_supply, row.max_supply],
      ['MINTED', '3', '0', '10'],
    );
    const listing = await listingOf(listingId);
    assert.deepEqual([listing.status, listing.quantity_remaining], ['ACTIVE', 7]);
    assert.deepEqual(
      await reservationOf(item.id),
      { holder_id: listingId, kind: 'LISTING', quantity: '10' },
      'the listing still holds the item for its other buyers',
    );
    const claimed = await claimOf(claimId);
    assert.deepEqual([claimed.claimed, claimed.active], [true, true]);

    // The claim delivers what was sold once: a second redeem is refused before the PIN.
    const again = await claims().redeem(token, { address: recipient, pin: '000000' });
    assertError(again, 409, 'INVALID_STATE');

    // The next buyer is served from the same listing: the units add up on chain and in supply.
    const second = await buyByEmail(listingId, 5);
    const { recipient: other } = await redeem(second.email);
    assert.equal(await balanceOf(address, other, item.token_id!), 5n);
    assert.equal((await findItemRow(db(), item.id)).minted_supply, '8');
    assert.equal((await listingOf(listingId)).quantity_remaining, 2);

    // Sold out: the COMPLETE listing keeps the item only for the last claim, then lets it go.
    const last = await buyByEmail(listingId, 2);
    assert.equal((await listingOf(listingId)).status, 'COMPLETE');
    assert.deepEqual(await reservationOf(item.id), { holder_id: listingId, kind: 'LISTING', quantity: '2' });
    const { recipient: third } = await redeem(last.email);
    assert.equal(await balanceOf(address, third, item.token_id!), 2n);
    assert.equal(await activeHolder(flow.env, item.id), undefined, 'every sale delivered: the item is free');
    assert.equal((await findItemRow(db(), item.id)).minted_supply, '10');
  });

  it('an expired claim gives its units back to the listing, and to the item once the listing ends', async () => {
    const { item, listingId } = await listedItem();
    const { claimId } = await buyByEmail(listingId, 4);
    await db()
      .updateTable('email_claims')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', claimId)
      .execute();
    await expireDueClaims(db(), flow.env.ctx);
    const expired = await claimOf(claimId);
    assert.deepEqual([expired.active, expired.claimed], [false, false]);
    // Still sold (quantity_remaining counts CONFIRMED intents): the units wait under the listing.
    const listing = await listingOf(listingId);
    assert.deepEqual([listing.status, listing.quantity_remaining], ['ACTIVE', 6]);
    assert.deepEqual(await activeHolder(flow.env, item.id), { holder_id: listingId, kind: 'LISTING' });

    const cancelled = await flow.env.call('POST', `/v1/listings/${listingId}/cancel`, { token: admin() });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal(await activeHolder(flow.env, item.id), undefined, 'no claim may deliver: the item is free');
    // Nothing was minted: the item's whole supply is usable again, the expired claim's units too.
    const row = await findItemRow(db(), item.id);
    assert.deepEqual([row.minted_supply, row.max_supply], ['0', '10']);
    const reclaimed = await flow.env.call('POST', '/v1/email-claims', {
      token: admin(),
      body: { email: newEmail(), item_id: item.id, quantity: 10 },
    });
    assert.equal(reclaimed.statusCode, 201, reclaimed.body);
  });

  it('cancelling the listing keeps the units of unclaimed claims for them; the item is free once they are delivered', async () => {
    const { address, item, listingId } = await listedItem();
    const { email, claimId } = await buyByEmail(listingId, 3);
    const cancelled = await flow.env.call('POST', `/v1/listings/${listingId}/cancel`, { token: admin() });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal(cancelled.json().status, 'CANCELLED');
    assert.deepEqual(
      await reservationOf(item.id),
      { holder_id: listingId, kind: 'LISTING', quantity: '3' },
      "the cancelled listing keeps the item for the claim's 3 units",
    );
    const mint = await flow.env.call('POST', '/v1/mint-requests', {
      token: admin(),
      body: { item_id: item.id, quantity: '7', to_address: randomAddress() },
    });
    assertError(mint, 409, 'ITEM_RESERVED');
    assert.equal((await claimOf(claimId)).active, true);

    const { recipient } = await redeem(email);
    assert.equal(await balanceOf(address, recipient, item.token_id!), 3n);
    assert.equal(
      await activeHolder(flow.env, item.id),
      undefined,
      'delivered: the cancelled listing lets go',
    );
    const row = await findItemRow(db(), item.id);
    assert.deepEqual([row.minted_supply, row.max_supply], ['3', '10']);
    // The rest of the supply, and not a unit more, can be minted elsewhere now.
    const tooMany = await flow.env.call('POST', '/v1/mint-requests', {
      token: admin(),
      body: { item_id: item.id, quantity: '8', to_address: randomAddress() },
    });
    assertError(tooMany, 422, 'INSUFFICIENT_SUPPLY');
    const rest = await flow.env.call('POST', '/v1/mint-requests', {
      token: admin(),
      body: { item_id: item.id, quantity: '7', to_address: randomAddress() },
    });
    assert.equal(rest.statusCode, 201, rest.body);
  });

  it('a cancelled listing lets the item go when the last claim it covers expires or is revoked', async () => {
    const { item, listingId } = await listedItem();
    const first = await buyByEmail(listingId, 2);
    const second = await buyByEmail(listingId, 5);
    const cancelled = await flow.env.call('POST', `/v1/listings/${listingId}/cancel`, { token: admin() });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal((await reservationOf(item.id))?.quantity, '7');

    const revoked = await flow.env.call('POST', `/v1/email-claims/${first.claimId}/revoke`, {
      token: admin(),
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.deepEqual(
      await reservationOf(item.id),
      { holder_id: listingId, kind: 'LISTING', quantity: '5' },
      "the revoked claim's units are the item's; the other claim's stay held",
    );

    await db()
      .updateTable('email_claims')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', second.claimId)
      .execute();
    await expireDueClaims(db(), flow.env.ctx);
    await flow.until(
      async () => ((await claimOf(second.claimId)).active ? undefined : true),
      'the claim to expire',
    );
    assert.equal(await activeHolder(flow.env, item.id), undefined, 'no claim is left: the item is free');
    const token = await claimTokenFromMail(flow.env, second.email);
    const refused = await claims().verify(token);
    assert.equal(refused.statusCode, 409, refused.body);
  });
});
