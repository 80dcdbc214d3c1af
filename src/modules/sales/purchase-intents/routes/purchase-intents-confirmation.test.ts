import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { assertError } from '../../../../../test/assertions.ts';
import { completedTransactionColumns } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { mailsTo } from '../../../../../test/support/auth.ts';
import { testPayments } from '../../../../../test/support/payment-sessions.ts';
import {
  activeHolder,
  createPaidListing,
  queuedJob,
  randomAddress,
} from '../../../../../test/support/sales.ts';
import { closeOpenBatches } from '../../../../../test/support/token-requests.ts';
import { settleTransaction } from '../../../platform/transactions/transaction-settled.task.ts';
import { confirmPurchaseIntent } from '../purchase-confirmation.service.ts';
import { deliverPurchaseIntent } from '../purchase-delivery.service.ts';
import { EXPIRY_SWEEP_MS } from '../purchase-intents.jobs.ts';
import { deliverPurchaseIntentTask, expirePurchaseIntentsTask } from '../purchase-intents.task.ts';
import { expireDueIntents } from '../purchase-payments.service.ts';
import { purchaseIntentCalls, seedPurchaseIntents } from './purchase-intents.test-setup.ts';

// CARD_PROVIDER intents here go through an in-memory provider (card payments have their own tests).
const { ports } = testPayments();

/**
 * After a purchase is made: PENDING holds and their expiry, the buyer's view and cancel, the
 * confirmation and the delivery it queues, and cancellations racing them.
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

  const { db, collection, items, newEmail, buy, bought, listingOf, intentOf, deliver, confirm } =
    purchaseIntentCalls(() => ({ env, organizationId, admin }), tokenIds);

  describe('holds, the buyer view, confirmation', () => {
    it('a PENDING hold expires by the sweep job once due: EXPIRED, the units available again, the next sweep queued', async () => {
      const c = await collection();
      await items(c, 1);
      const listing = await createPaidListing(env, admin.token, {
        collection_id: c.id,
        policy: {
          type: 'FCFS',
          payment_session_duration: { timeout_seconds: 900, provider_override: { CARD_PROVIDER: 60 } },
        },
      });
      const created = await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        buyer: { email: newEmail() },
      });
      assert.equal(created.status, 'PENDING');
      assert.equal(created.fulfillment_method, 'EMAIL');
      const ttl = new Date(created.expiration).getTime() - Date.now();
      assert.ok(ttl > 50_000 && ttl <= 60_000, `the provider override holds 60 s (${ttl})`);
      assertError(
        await buy({ listing_id: listing.id, buyer: { email: newEmail() } }),
        422,
        'INSUFFICIENT_SUPPLY',
      );
      // The sweep expires it once due (not before), and queues its next run two seconds on.
      const sweep = () => expirePurchaseIntentsTask.handler({}, undefined as never, env.ctx);
      await sweep();
      assert.equal((await intentOf(created.id)).status, 'PENDING');
      await db()
        .updateTable('purchase_intents')
        .set({ expiration: new Date(Date.now() - 1000) })
        .where('id', '=', created.id)
        .execute();
      const before = Date.now();
      await sweep();
      assert.equal((await intentOf(created.id)).status, 'EXPIRED');
      const next = await queuedJob(env, 'expire_purchase_intents');
      assert.equal(next?.task_identifier, 'expire_purchase_intents');
      const delay = next!.run_at.getTime() - before;
      assert.ok(
        delay >= EXPIRY_SWEEP_MS - 50 && delay <= EXPIRY_SWEEP_MS + 5000,
        `next sweep in ${delay} ms`,
      );
      await bought({ listing_id: listing.id, buyer: { email: newEmail() } });
    });

    it('shows the buyer its intent with X-Client-Token and lets it cancel while PENDING (204, then 409)', async () => {
      const c = await collection();
      await items(c, 1);
      const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
      const created = await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        buyer: { eth_address: randomAddress() },
      });
      assert.equal(created.fulfillment_method, 'TRANSFER');
      const path = `/v1/public/purchase-intents/${created.id}`;
      assertError(await env.call('GET', path), 401, 'UNAUTHENTICATED');
      assertError(await env.call('GET', path, { headers: { 'x-client-token': 'wrong' } }), 404, 'NOT_FOUND');
      const view = await env.call('GET', path, { headers: { 'x-client-token': created.client_token } });
      assert.equal(view.statusCode, 200, view.body);
      assert.equal(view.json().status, 'PENDING');
      assert.equal('client_token' in view.json(), false);
      assert.equal('email' in view.json(), false);
      assertError(
        await env.call('DELETE', path, { headers: { 'x-client-token': 'wrong' } }),
        404,
        'NOT_FOUND',
      );
      const cancelled = await env.call('DELETE', path, {
        headers: { 'x-client-token': created.client_token },
      });
      assert.equal(cancelled.statusCode, 204, cancelled.body);
      assertError(
        await env.call('DELETE', path, { headers: { 'x-client-token': created.client_token } }),
        409,
        'INVALID_STATE',
      );
      assert.equal((await listingOf(listing.id)).quantity_remaining, 1);
      await bought({ listing_id: listing.id, buyer: { email: newEmail() } });
    });

    it('confirms once: ASSIGNED with the items moved from the listing, a second confirmation changes nothing', async () => {
      const c = await collection();
      const list = await items(c, 2);
      const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
      const created = await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        buyer: { email: newEmail() },
      });
      assert.equal(await confirm(created.id), 'CONFIRMED');
      assert.equal(await confirm(created.id), 'ALREADY_CONFIRMED');
      const intent = await intentOf(created.id);
      assert.equal(intent.status, 'CONFIRMED');
      assert.equal(intent.fulfillment_status, 'ASSIGNED');
      assert.deepEqual(intent.item_ids, [list[0]!.id]);
      assert.equal((await listingOf(listing.id)).quantity_remaining, 1);
      assert.deepEqual(await activeHolder(env, list[1]!.id), { holder_id: listing.id, kind: 'LISTING' });
    });

    it('a worker stopped between confirmation and delivery delivers exactly once after restart', async () => {
      const c = await collection();
      await items(c, 2);
      const listing = await createPaidListing(env, admin.token, {
        collection_id: c.id,
        max_quantity_per_tx: 2,
      });
      const email = newEmail();
      const created = await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        quantity: 2,
        buyer: { email },
      });
      await confirm(created.id);
      const job = await queuedJob(env, `deliver_purchase_intent:${created.id}`);
      assert.equal(job?.task_identifier, 'deliver_purchase_intent', 'queued with the confirmation');
      // The worker dies inside the delivery: its transaction never commits.
      await assert.rejects(
        db()
          .transaction()
          .execute(async (tx) => {
            await deliverPurchaseIntent(tx, env.ctx, created.id);
            throw new Error('worker killed');
          }),
        /worker killed/,
      );
      assert.deepEqual((await intentOf(created.id)).item_claim_ids, []);
      // After a restart the job runs (and may run again): one delivery.
      const helpers = {} as Parameters<typeof deliverPurchaseIntentTask.handler>[1];
      for (let i = 0; i < 2; i++)
        await deliverPurchaseIntentTask.handler({ purchase_intent_id: created.id }, helpers, env.ctx);
      const delivered = await intentOf(created.id);
      assert.equal(delivered.fulfillment_status, 'COMPLETED');
      assert.equal(delivered.item_claim_ids.length, 2);
      assert.equal((await mailsTo(env, email, 'REDEEM_NFT')).length, 2);
    });

    it('TRANSFER delivery that fails on chain is EXCEPTION with the reason; one that succeeds is COMPLETED', async () => {
      const c = await collection();
      await items(c, 2);
      const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
      const outcomes: Record<string, string> = {};
      for (const outcome of ['CANCELLED', 'COMPLETED'] as const) {
        const created = await bought({
          listing_id: listing.id,
          provider: 'CARD_PROVIDER',
          buyer: { eth_address: randomAddress() },
        });
        await confirm(created.id);
        await deliver(created.id);
        const [transactionId] = (await intentOf(created.id)).transaction_ids;
        assert.ok(transactionId, 'the delivery queued its transaction');
        await closeOpenBatches(env.ctx);
        const transaction = await db()
          .updateTable('transactions')
          .set(
            outcome === 'CANCELLED'
              ? {
                  state: 'CANCELLED',
                  failure_reason: 'execution reverted: no minter role',
                  completed_at: new Date(),
                }
              : { ...completedTransactionColumns(Number(seq++), 'SUCCESS') },
          )
          .where('id', '=', transactionId!)
          .returningAll()
          .executeTakeFirstOrThrow();
        await settleTransaction(db(), env.ctx, transaction.id);
        const settled = await intentOf(created.id);
        outcomes[outcome] = `${settled.fulfillment_status}: ${settled.fulfillment_error}`;
      }
      assert.match(
        outcomes.CANCELLED!,
        /^EXCEPTION: delivery transaction \S+ execution reverted: no minter role$/,
      );
      assert.equal(outcomes.COMPLETED, 'COMPLETED: null');
    });

    it('a payment after expiry or cancellation is UNRESOLVED and delivers nothing', async () => {
      const c = await collection();
      await items(c, 2);
      const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
      const expired = await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        buyer: { email: newEmail() },
      });
      await db()
        .updateTable('purchase_intents')
        .set({ expiration: new Date(Date.now() - 1000) })
        .where('id', '=', expired.id)
        .execute();
      await expireDueIntents(db(), env.ctx);
      assert.equal(await confirm(expired.id), 'UNRESOLVED');
      const intent = await intentOf(expired.id);
      assert.equal(intent.status, 'UNRESOLVED');
      assert.deepEqual(intent.item_ids, []);
      assert.equal(await queuedJob(env, `deliver_purchase_intent:${expired.id}`), undefined);
      assert.equal((await listingOf(listing.id)).quantity_remaining, 2);
    });

    it('cancelling the listing cancels its PENDING intents', async () => {
      const c = await collection();
      await items(c, 1);
      const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
      const created = await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        buyer: { email: newEmail() },
      });
      await env.call('POST', `/v1/listings/${listing.id}/cancel`, { token: admin.token });
      assert.equal((await intentOf(created.id)).status, 'CANCELLED');
    });

    it('a cancel that comes while a confirmation holds the intent waits for it, without a deadlock', async () => {
      const c = await collection();
      await items(c, 2);
      const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
      const created = await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        buyer: { email: newEmail() },
      });
      // The confirmation locks the intent, then (once the cancel waits) the listing, as it does.
      let cancelled: Promise<{ statusCode: number; body: string }> | undefined;
      await db()
        .transaction()
        .execute(async (tx) => {
          await sql`SELECT id FROM purchase_intents WHERE id = ${created.id} FOR UPDATE`.execute(tx);
          cancelled = env.call('POST', `/v1/listings/${listing.id}/cancel`, { token: admin.token });
          for (let waited = 0; ; waited += 20) {
            const { rows } = await sql<{ n: number }>`
              SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db());
            if (rows[0]!.n > 0) break;
            if (waited > 10_000) throw new Error('the cancel never waited');
            await new Promise((r) => setTimeout(r, 20));
          }
          await confirmPurchaseIntent(tx, env.ctx, created.id);
        });
      const answer = await cancelled!;
      assert.equal(answer.statusCode, 200, answer.body);
      // The confirmation came first: its sale stands, and the cancel ended the listing after it.
      assert.equal((await intentOf(created.id)).status, 'CONFIRMED');
      assert.equal((await listingOf(listing.id)).status, 'CANCELLED');
    });
  });
});
