import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { assertError } from '../../../../../test/assertions.ts';
import { completedTransactionColumns, insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { freshIp, mailsTo, seedRateLimit } from '../../../../../test/support/auth.ts';
import { claimClient, claimTokenFromMail, pinFromMail } from '../../../../../test/support/email-claims.ts';
import { testPayments } from '../../../../../test/support/payment-sessions.ts';
import {
  activeHolder,
  createListing,
  createPaidListing,
  listingCounters,
  queuedJob,
  randomAddress,
} from '../../../../../test/support/sales.ts';
import { insertItems } from '../../../../../test/support/token-requests.ts';
import type { CollectionRow } from '../../../../db/schema.ts';
import type { RateLimit } from '../../../../http/rate-limit.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { settleTransaction } from '../../../platform/transactions/transaction-settled.task.ts';
import { expireDueClaims } from '../../email-claims/email-claims.service.ts';
import { EXPIRY_SWEEP_MS } from '../purchase-intents.jobs.ts';
import { confirmPurchaseIntent, deliverPurchaseIntent, LIMITS } from '../purchase-intents.service.ts';
import { deliverPurchaseIntentTask, expirePurchaseIntentsTask } from '../purchase-intents.task.ts';
import { expireDueIntents } from '../purchase-payments.service.ts';

// CARD_PROVIDER intents here go through an in-memory provider (card payments have their own tests).
const { ports } = testPayments();

describe('purchase intents', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  let member: Actor;
  let stranger: Actor;
  let seq = 1n;
  let buyers = 0;
  const db = () => env.database.db;

  before(async () => {
    env = await setupTest({}, { ports });
    await env.insertNetwork(31337);
    ({ organizationId, admin, member, stranger } = await env.createTenant());
  });
  after(() => env.close());

  const collection = () => insertCollection(db(), { organizationId, deployedOn: 'FlexibleERC721' });
  const items = (c: CollectionRow, count: number) => {
    const first = seq;
    seq += BigInt(count);
    return insertItems(db(), count, {
      collectionId: c.id,
      organizationId: c.organization_id,
      firstTokenId: first,
    });
  };
  const newEmail = () => `buyer-${++buyers}@example.com`;
  const buy = (body: Record<string, unknown>, headers: Record<string, string> = {}, ip = freshIp()) =>
    env.call('POST', '/v1/public/purchase-intents', {
      body: { quantity: 1, provider: 'EMAIL_CLAIM', ...body },
      headers,
      ip,
    });
  const bought = async (body: Record<string, unknown>) => {
    const response = await buy(body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  const listingOf = async (id: string) =>
    (await env.call('GET', `/v1/listings/${id}`, { token: admin.token })).json();
  const intentOf = async (id: string) =>
    (await env.call('GET', `/v1/purchase-intents/${id}`, { token: admin.token })).json();
  const deliver = (id: string) =>
    db()
      .transaction()
      .execute((tx) => deliverPurchaseIntent(tx, env.ctx, id));
  const itemRow = (id: string) =>
    db().selectFrom('items').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const confirm = (id: string) =>
    db()
      .transaction()
      .execute((tx) => confirmPurchaseIntent(tx, env.ctx, id));

  describe('EMAIL_CLAIM sale', () => {
    it('is CONFIRMED at once, assigned the lowest token id, and delivered by a mailed email claim', async () => {
      const c = await collection();
      const list = await items(c, 3);
      const listing = await createListing(env, admin.token, { collection_id: c.id, max_quantity_per_tx: 2 });
      const email = newEmail();
      const created = await bought({ listing_id: listing.id, quantity: 2, buyer: { email } });
      assert.equal(created.status, 'CONFIRMED');
      assert.equal(created.fulfillment_method, 'EMAIL');
      assert.deepEqual(created.provider_price, { amount: '0', currency: 'USD' });
      assert.equal(created.data, null);
      assert.equal(typeof created.client_token, 'string');
      const assigned = await intentOf(created.id);
      assert.equal(assigned.fulfillment_status, 'ASSIGNED');
      assert.deepEqual(assigned.item_ids, [list[0]!.id, list[1]!.id]);
      assert.deepEqual(await activeHolder(env, list[0]!.id), {
        holder_id: created.id,
        kind: 'PURCHASE_INTENT',
      });
      assert.ok(await queuedJob(env, `deliver_purchase_intent:${created.id}`), 'the delivery job is queued');
      assert.equal((await listingOf(listing.id)).quantity_remaining, 1);

      await deliver(created.id);
      await deliver(created.id);
      const delivered = await intentOf(created.id);
      assert.equal(delivered.fulfillment_status, 'COMPLETED');
      assert.equal(delivered.item_claim_ids.length, 2, 'one claim per item, even when delivery runs twice');
      assert.equal((await mailsTo(env, email, 'REDEEM_NFT')).length, 2);
      const claim = await env.call('GET', `/v1/email-claims/${delivered.item_claim_ids[0]}`, {
        token: admin.token,
      });
      assert.equal(claim.json().item_id, list[0]!.id);
      assert.deepEqual(await activeHolder(env, list[0]!.id), {
        holder_id: delivered.item_claim_ids[0],
        kind: 'EMAIL_CLAIM',
      });
    });

    it('completes the listing when its last unit is sold', async () => {
      const c = await collection();
      await items(c, 1);
      const listing = await createListing(env, admin.token, { collection_id: c.id });
      await bought({ listing_id: listing.id, buyer: { email: newEmail() } });
      const after = await listingOf(listing.id);
      assert.equal(after.status, 'COMPLETE');
      assert.equal(after.quantity_remaining, 0);
      assertError(await buy({ listing_id: listing.id, buyer: { email: newEmail() } }), 422, 'NOT_ELIGIBLE');
    });

    it('gives the claims the policy email_claim_duration and the listing campaign', async () => {
      const c = await collection();
      await items(c, 1);
      const campaign = await env.call('POST', '/v1/marketing-campaigns', {
        token: admin.token,
        body: { name: `sale ${seq}`, email_from: 'Shop' },
      });
      const listing = await createListing(env, admin.token, {
        collection_id: c.id,
        campaign_id: campaign.json().id,
        policy: { type: 'FCFS', email_claim_duration: 3600 },
      });
      const created = await bought({ listing_id: listing.id, buyer: { email: newEmail() } });
      const before = Date.now();
      await deliver(created.id);
      const claimId = (await intentOf(created.id)).item_claim_ids[0];
      const claim = (await env.call('GET', `/v1/email-claims/${claimId}`, { token: admin.token })).json();
      assert.equal(claim.campaign_id, campaign.json().id);
      const ttl = new Date(claim.expiration).getTime() - before;
      assert.ok(ttl > 3_590_000 && ttl < 3_610_000, `expires after an hour (${ttl} ms)`);
    });
  });

  describe('create checks, in order', () => {
    it('404 for an unknown listing, NOT_ELIGIBLE outside the window or when not ACTIVE', async () => {
      assertError(
        await buy({ listing_id: '0190f1c0-0000-7000-8000-00000000ffff', buyer: { email: newEmail() } }),
        404,
        'NOT_FOUND',
      );
      const c = await collection();
      await items(c, 2);
      const later = await createListing(env, admin.token, {
        collection_id: c.id,
        quantity_listed: 1,
        start_time: new Date(Date.now() + 3_600_000).toISOString(),
      });
      assertError(await buy({ listing_id: later.id, buyer: { email: newEmail() } }), 422, 'NOT_ELIGIBLE');
      const ended = await createListing(env, admin.token, { collection_id: c.id });
      await db()
        .updateTable('listings')
        .set({ start_time: new Date(Date.now() - 7200_000), end_time: new Date(Date.now() - 1000) })
        .where('id', '=', ended.id)
        .execute();
      assertError(await buy({ listing_id: ended.id, buyer: { email: newEmail() } }), 422, 'NOT_ELIGIBLE');
      await env.call('POST', `/v1/listings/${ended.id}/cancel`, { token: admin.token });
      assertError(await buy({ listing_id: ended.id, buyer: { email: newEmail() } }), 422, 'NOT_ELIGIBLE');
    });

    it('400 for a provider the listing lacks, a quantity above max_quantity_per_tx, or buyer fields that do not fit', async () => {
      const c = await collection();
      await items(c, 3);
      const listing = await createListing(env, admin.token, {
        collection_id: c.id,
        quantity_listed: 2,
        max_quantity_per_tx: 2,
      });
      assertError(
        await buy({ listing_id: listing.id, provider: 'MINT_VOUCHER', buyer: { email: newEmail() } }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await buy({ listing_id: listing.id, quantity: 3, buyer: { email: newEmail() } }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await buy({ listing_id: listing.id, quantity: 0, buyer: { email: newEmail() } }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await buy({ listing_id: listing.id, buyer: { eth_address: randomAddress() } }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(await buy({ listing_id: listing.id, buyer: {} }), 400, 'VALIDATION_FAILED');
      assertError(
        await buy({ listing_id: listing.id, buyer: { email: 'not-an-email' } }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await buy({ listing_id: listing.id, buyer: { email: newEmail() }, extra: 1 }),
        400,
        'VALIDATION_FAILED',
      );
      const paid = await createPaidListing(env, admin.token, { collection_id: c.id, quantity_listed: 1 });
      assertError(
        await buy({ listing_id: paid.id, provider: 'CARD_PROVIDER', buyer: {} }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('NOT_ELIGIBLE off the allow list or past max_per_user (email any case, address by value)', async () => {
      const c = await collection();
      await items(c, 5);
      const vip = newEmail();
      const address = randomAddress();
      const listing = await createPaidListing(env, admin.token, {
        collection_id: c.id,
        max_quantity_per_tx: 2,
        policy: { type: 'ALLOW_LIST', email_addresses: [vip], eth_addresses: [address], max_per_user: 2 },
      });
      assertError(await buy({ listing_id: listing.id, buyer: { email: newEmail() } }), 422, 'NOT_ELIGIBLE');
      await bought({ listing_id: listing.id, buyer: { email: vip.toUpperCase() } });
      await bought({ listing_id: listing.id, provider: 'CARD_PROVIDER', buyer: { email: vip } });
      assertError(await buy({ listing_id: listing.id, buyer: { email: vip } }), 422, 'NOT_ELIGIBLE');
      await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        quantity: 2,
        buyer: { eth_address: address.toLowerCase() },
      });
      assertError(
        await buy({ listing_id: listing.id, provider: 'CARD_PROVIDER', buyer: { eth_address: address } }),
        422,
        'NOT_ELIGIBLE',
      );
      const eligibility = await env.call('GET', `/v1/public/listings/${listing.id}/eligibility`, {
        query: { email: vip },
      });
      assert.deepEqual(eligibility.json(), {
        is_eligible: false,
        quantity_claimed: 2,
        quantity_allowed: 0,
        reason: 'MAX_PER_USER',
      });
    });

    it('INSUFFICIENT_SUPPLY when held and sold units leave too few', async () => {
      const c = await collection();
      await items(c, 2);
      const listing = await createPaidListing(env, admin.token, {
        collection_id: c.id,
        max_quantity_per_tx: 2,
      });
      await bought({ listing_id: listing.id, provider: 'CARD_PROVIDER', buyer: { email: newEmail() } });
      assertError(
        await buy({
          listing_id: listing.id,
          provider: 'CARD_PROVIDER',
          quantity: 2,
          buyer: { email: newEmail() },
        }),
        422,
        'INSUFFICIENT_SUPPLY',
      );
      await bought({ listing_id: listing.id, buyer: { email: newEmail() } });
      assertError(
        await buy({ listing_id: listing.id, buyer: { email: newEmail() } }),
        422,
        'INSUFFICIENT_SUPPLY',
      );
    });

    it('rate limits per client address and per buyer (429)', async () => {
      const c = await collection();
      await items(c, 1);
      const listing = await createListing(env, admin.token, { collection_id: c.id });
      const ip = freshIp();
      await seedRateLimit(env, LIMITS.perIp, ip, LIMITS.perIp.max);
      assertError(
        await buy({ listing_id: listing.id, buyer: { email: newEmail() } }, {}, ip),
        429,
        'RATE_LIMITED',
      );
      const email = newEmail();
      await seedRateLimit(env, LIMITS.perBuyer, `email:${email}`, LIMITS.perBuyer.max);
      assertError(
        await buy({ listing_id: listing.id, buyer: { email: email.toUpperCase() } }),
        429,
        'RATE_LIMITED',
      );
    });

    it('counts every request, one for an unknown listing too (404), and refuses a limited one (429) before looking for its listing, holding nothing', async () => {
      const bucket = async (limit: RateLimit, subject: string) =>
        (
          await db()
            .selectFrom('rate_limit_buckets')
            .select('hits')
            .where('key', '=', `${limit.name}:${subject}`)
            .executeTakeFirst()
        )?.hits;
      const ip = freshIp();
      const email = newEmail();
      const unknown = { listing_id: uuidv7(), buyer: { email } };
      assertError(await buy(unknown, {}, ip), 404, 'NOT_FOUND');
      assert.equal(await bucket(LIMITS.perIp, ip), 1);
      assert.equal(await bucket(LIMITS.perBuyer, `email:${email}`), 1);

      await seedRateLimit(env, LIMITS.perBuyer, `email:${email}`, LIMITS.perBuyer.max);
      const limited = await buy(unknown, {}, ip);
      assertError(limited, 429, 'RATE_LIMITED');
      assert.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After is set');
      assert.equal(await bucket(LIMITS.perIp, ip), 2, 'the limited request counted too');

      const c = await collection();
      await items(c, 1);
      const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
      assertError(
        await buy({ listing_id: listing.id, provider: 'CARD_PROVIDER', buyer: { email } }, {}, ip),
        429,
        'RATE_LIMITED',
      );
      assert.deepEqual(await listingCounters(env, listing.id), { quantity_held: 0, quantity_sold: 0 });
      assert.equal(
        (
          await db()
            .selectFrom('purchase_intents')
            .select('id')
            .where('listing_id', '=', listing.id)
            .execute()
        ).length,
        0,
      );
    });

    it('replays an Idempotency-Key retry on the same listing without a second hold', async () => {
      const c = await collection();
      await items(c, 2);
      const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
      const ip = freshIp();
      const body = { listing_id: listing.id, provider: 'CARD_PROVIDER', buyer: { email: newEmail() } };
      const first = await buy(body, { 'idempotency-key': 'retry-1' }, ip);
      const second = await buy(body, { 'idempotency-key': 'retry-1' }, ip);
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(second.body, first.body);
      const row = await db()
        .selectFrom('listings')
        .select('quantity_held')
        .where('id', '=', listing.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.quantity_held, 1);
      assertError(
        await buy({ ...body, quantity: 2 }, { 'idempotency-key': 'retry-1' }, ip),
        409,
        'IDEMPOTENCY_KEY_REUSED',
      );
    });
  });

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

  describe('admin reads', () => {
    it('lists with the spec filters (arrays repeated) and hides other organizations', async () => {
      const c = await collection();
      const list = await items(c, 3);
      const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
      const email = newEmail();
      const address = randomAddress();
      const a = await bought({ listing_id: listing.id, buyer: { email } });
      const b = await bought({
        listing_id: listing.id,
        provider: 'CARD_PROVIDER',
        buyer: { eth_address: address },
      });
      const ids = async (query: Record<string, string | string[]>) => {
        const response = await env.call('GET', '/v1/purchase-intents', {
          token: member.token,
          query: { listing_id: listing.id, ...query },
        });
        assert.equal(response.statusCode, 200, response.body);
        return response.json().results.map((r: { id: string }) => r.id);
      };
      assert.deepEqual(await ids({}), [a.id, b.id]);
      assert.deepEqual(await ids({ status: ['CONFIRMED', 'EXPIRED'] }), [a.id]);
      assert.deepEqual(await ids({ email: email.toUpperCase() }), [a.id]);
      assert.deepEqual(await ids({ eth_address: address.toLowerCase() }), [b.id]);
      assert.deepEqual(await ids({ fulfillment_status: ['PENDING'] }), [b.id]);
      assert.deepEqual(await ids({ fulfillment_method: ['EMAIL'] }), [a.id]);
      assert.deepEqual(await ids({ payment_provider: ['CARD_PROVIDER', 'MINT_VOUCHER'] }), [b.id]);
      assert.deepEqual(await ids({ item_id: list[0]!.id }), [a.id]);
      assert.deepEqual(await ids({ collection_id: c.id }), [a.id, b.id]);
      assertError(
        await env.call('GET', '/v1/purchase-intents', { token: admin.token, query: { status: 'PAID' } }),
        400,
        'VALIDATION_FAILED',
      );
      const theirs = await env.call('GET', '/v1/purchase-intents', {
        token: stranger.token,
        query: { listing_id: listing.id },
      });
      assert.equal(theirs.json().total_results, 0);
      assertError(
        await env.call('GET', `/v1/purchase-intents/${a.id}`, { token: stranger.token }),
        404,
        'NOT_FOUND',
      );
    });
  });
});
