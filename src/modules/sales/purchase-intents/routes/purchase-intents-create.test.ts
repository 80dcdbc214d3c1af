import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { freshIp, mailsTo, seedRateLimit } from '../../../../../test/support/auth.ts';
import { testPayments } from '../../../../../test/support/payment-sessions.ts';
import {
  activeHolder,
  createListing,
  createPaidListing,
  listingCounters,
  queuedJob,
  randomAddress,
} from '../../../../../test/support/sales.ts';
import type { RateLimit } from '../../../../http/rate-limit.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { LIMITS } from '../purchase-creation.service.ts';
import { purchaseIntentCalls, seedPurchaseIntents } from './purchase-intents.test-setup.ts';

// CARD_PROVIDER intents here go through an in-memory provider (card payments have their own tests).
const { ports } = testPayments();

/**
 * Buying: an EMAIL_CLAIM sale from start to delivery, the checks of POST /v1/public/purchase-intents
 * in their order, and the admin reads (holds and confirmation: purchase-intents-confirmation.test.ts,
 * ERC1155 item-level sales: purchase-intents-erc1155.test.ts).
 */
describe('purchase intents', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  let member: Actor;
  let stranger: Actor;
  /** Token ids and nonces, unique in the file's database (items() takes its token ids here too). */
  let seq = 1n;
  const tokenIds = (count: number) => {
    const first = seq;
    seq += BigInt(count);
    return first;
  };

  before(async () => {
    env = await setupTest({}, { ports });
    ({ organizationId, admin, member, stranger } = await seedPurchaseIntents(env));
  });
  after(() => env.close());

  const { db, collection, items, newEmail, buy, bought, listingOf, intentOf, deliver } = purchaseIntentCalls(
    () => ({ env, organizationId, admin }),
    tokenIds,
  );

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
