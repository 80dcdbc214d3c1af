import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { completedTransactionColumns, insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { freshIp, mailsTo } from '../../../../../test/support/auth.ts';
import { claimClient, claimTokenFromMail, pinFromMail } from '../../../../../test/support/email-claims.ts';
import { testPayments } from '../../../../../test/support/payment-sessions.ts';
import { activeHolder, createPaidListing, randomAddress } from '../../../../../test/support/sales.ts';
import { closeOpenBatches, insertItems } from '../../../../../test/support/token-requests.ts';
import { settleTransaction } from '../../../platform/transactions/transaction-settled.task.ts';
import { expireDueClaims } from '../../email-claims/email-claims.service.ts';
import { purchaseIntentCalls, seedPurchaseIntents } from './purchase-intents.test-setup.ts';

// CARD_PROVIDER intents here go through an in-memory provider (card payments have their own tests).
const { ports } = testPayments();

/**
 * ERC1155 item-level sales: units of one item sold under a listing, delivered by mint or email
 * claim, and what the listing keeps of the item once cancelled.
 */
describe('purchase intents', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  /** Token ids and nonces, unique in the file's database (items() takes its token ids here too). */
  let seq = 1n;
  const tokenIds = (count: number) => {
    const first = seq;
    seq += BigInt(count);
    return first;
  };

  before(async () => {
    env = await setupTest({}, { ports });
    ({ organizationId, admin } = await seedPurchaseIntents(env));
  });
  after(() => env.close());

  const { db, newEmail, bought, listingOf, intentOf, deliver, itemRow, confirm } = purchaseIntentCalls(
    () => ({ env, organizationId, admin }),
    tokenIds,
  );

  describe('ERC1155 item-level sales', () => {
    it('delivers units of the item by one mint, or one email claim, under the listing, which keeps the item for its other buyers', async () => {
      const c = await insertCollection(db(), { organizationId, deployedOn: 'FlexibleERC1155' });
      const [item] = await insertItems(db(), 1, {
        collectionId: c.id,
        organizationId,
        firstTokenId: seq++,
        maxSupply: 10n,
      });
      const listing = await createPaidListing(env, admin.token, {
        item_id: item!.id,
        max_quantity_per_tx: 5,
      });
      assert.equal(listing.quantity_listed, 10);
      const transfer = await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        quantity: 3,
        buyer: { eth_address: randomAddress() },
      });
      await confirm(transfer.id);
      await deliver(transfer.id);
      const delivered = await intentOf(transfer.id);
      assert.deepEqual(delivered.item_ids, [item!.id]);
      assert.equal(delivered.transaction_ids.length, 1);
      const mints = await db()
        .selectFrom('mint_requests')
        .selectAll()
        .where('item_id', '=', item!.id)
        .execute();
      assert.deepEqual(
        mints.map((m) => m.quantity),
        ['3'],
      );
      assert.deepEqual(await activeHolder(env, item!.id), { holder_id: listing.id, kind: 'LISTING' });
      const email = newEmail();
      const byEmail = await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        quantity: 2,
        buyer: { email },
      });
      await confirm(byEmail.id);
      await deliver(byEmail.id);
      await deliver(byEmail.id);
      const mailed = await intentOf(byEmail.id);
      assert.equal(mailed.fulfillment_status, 'COMPLETED', JSON.stringify(mailed));
      assert.equal(mailed.item_claim_ids.length, 1, 'one claim for the units, even when delivery runs twice');
      assert.equal((await mailsTo(env, email, 'REDEEM_NFT')).length, 1);
      const claim = (
        await env.call('GET', `/v1/email-claims/${mailed.item_claim_ids[0]}`, { token: admin.token })
      ).json();
      assert.deepEqual([claim.item_id, claim.quantity, claim.type], [item!.id, 2, 'PURCHASE']);
      assert.deepEqual(
        await activeHolder(env, item!.id),
        { holder_id: listing.id, kind: 'LISTING' },
        'the claim is covered by the listing, which keeps the item',
      );
      assert.equal((await listingOf(listing.id)).quantity_remaining, 5);
    });

    const erc1155Listing = async () => {
      const c = await insertCollection(db(), { organizationId, deployedOn: 'FlexibleERC1155' });
      const [item] = await insertItems(db(), 1, {
        collectionId: c.id,
        organizationId,
        firstTokenId: seq++,
        maxSupply: 10n,
      });
      const listing = await createPaidListing(env, admin.token, {
        item_id: item!.id,
        max_quantity_per_tx: 5,
      });
      return { item: item!, listing };
    };
    const reservationOf = (itemId: string) =>
      db()
        .selectFrom('item_reservations')
        .select(['holder_id', 'quantity'])
        .where('item_id', '=', itemId)
        .where('released_at', 'is', null)
        .executeTakeFirst();
    const settle = async (transactionId: string, outcome: 'SUCCESS' | 'REVERTED') => {
      await closeOpenBatches(env.ctx);
      const transaction = await db()
        .updateTable('transactions')
        .set(
          outcome === 'REVERTED'
            ? { state: 'CANCELLED', failure_reason: 'execution reverted', completed_at: new Date() }
            : { ...completedTransactionColumns(Number(seq++), 'SUCCESS') },
        )
        .where('id', '=', transactionId)
        .returningAll()
        .executeTakeFirstOrThrow();
      await settleTransaction(db(), env.ctx, transaction.id);
    };
    const cancelListing = async (id: string) => {
      const cancelled = await env.call('POST', `/v1/listings/${id}/cancel`, { token: admin.token });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
    };

    it('a cancelled listing keeps the item for a sale to an address not yet delivered, and lets it go when the delivery settles', async () => {
      const { item, listing } = await erc1155Listing();
      const sale = await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        quantity: 3,
        buyer: { eth_address: randomAddress() },
      });
      await confirm(sale.id);
      await cancelListing(listing.id);
      assert.deepEqual(await reservationOf(item.id), { holder_id: listing.id, quantity: '3' });
      await deliver(sale.id);
      const [transactionId] = (await intentOf(sale.id)).transaction_ids;
      assert.ok(transactionId, 'the sold units are still delivered');
      assert.deepEqual(await reservationOf(item.id), { holder_id: listing.id, quantity: '3' });
      await settle(transactionId!, 'SUCCESS');
      assert.equal((await intentOf(sale.id)).fulfillment_status, 'COMPLETED');
      assert.equal(await reservationOf(item.id), undefined, 'delivered: the item is free');
      const row = await itemRow(item.id);
      assert.deepEqual([row.minted_supply, row.max_supply], ['3', '10']);
    });

    it("a covered claim's reverted delivery reopens it with its units still kept by the cancelled listing", async () => {
      const { item, listing } = await erc1155Listing();
      const email = newEmail();
      const sale = await bought({ listing_id: listing.id, quantity: 2, buyer: { email } });
      await deliver(sale.id);
      const [claimId] = (await intentOf(sale.id)).item_claim_ids;
      const token = await claimTokenFromMail(env, email);
      const claims = claimClient(env, freshIp);
      assert.equal((await claims.verify(token)).statusCode, 200);
      const redeemed = await claims.redeem(token, {
        address: randomAddress(),
        pin: await pinFromMail(env, email),
      });
      assert.equal(redeemed.statusCode, 200, redeemed.body);
      await cancelListing(listing.id);
      assert.deepEqual(
        await reservationOf(item.id),
        { holder_id: listing.id, quantity: '2' },
        'claimed, its mint in flight: still owed',
      );
      await settle(redeemed.json().transaction_id, 'REVERTED');
      const reopened = (await env.call('GET', `/v1/email-claims/${claimId}`, { token: admin.token })).json();
      assert.deepEqual([reopened.active, reopened.claimed], [true, false]);
      assert.deepEqual(await reservationOf(item.id), { holder_id: listing.id, quantity: '2' });
      const revoked = await env.call('POST', `/v1/email-claims/${claimId}/revoke`, { token: admin.token });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.equal(await reservationOf(item.id), undefined, 'nothing owed any more: the item is free');
      const row = await itemRow(item.id);
      assert.deepEqual([row.token_status, row.minted_supply], ['NOT_MINTED', '0']);
    });

    it('a cancel racing a claim expiry leaves the item held for exactly the units still owed', async () => {
      const { item, listing } = await erc1155Listing();
      const deliveredClaim = async (quantity: number) => {
        const sale = await bought({ listing_id: listing.id, quantity, buyer: { email: newEmail() } });
        await deliver(sale.id);
        return (await intentOf(sale.id)).item_claim_ids[0] as string;
      };
      const expiring = await deliveredClaim(2);
      const kept = await deliveredClaim(3);
      await db()
        .updateTable('email_claims')
        .set({ expiration: new Date(Date.now() - 1000) })
        .where('id', '=', expiring)
        .execute();
      await Promise.all([expireDueClaims(db(), env.ctx), cancelListing(listing.id)]);
      assert.deepEqual(await reservationOf(item.id), { holder_id: listing.id, quantity: '3' });
      const revoked = await env.call('POST', `/v1/email-claims/${kept}/revoke`, { token: admin.token });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.equal(await reservationOf(item.id), undefined);
    });
  });
});
