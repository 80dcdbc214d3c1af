import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { assertError } from '../../../../../test/assertions.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { testPayments } from '../../../../../test/support/payment-sessions.ts';
import { createPaidListing, queuedJob } from '../../../../../test/support/sales.ts';
import { insertItems } from '../../../../../test/support/token-requests.ts';
import { ApiError } from '../../../../lib/errors.ts';
import {
  MAX_PROVIDER_EVENT_ATTEMPTS,
  receiveProviderEvent,
  retryProviderEvents,
} from '../../../platform/provider-events/provider-events.service.ts';
import { recordPayment, recordPaymentClosed } from '../purchase-confirmation.service.ts';
import {
  cancelPaymentSession,
  expireDueIntents,
  expireIntentWithProvider,
  reconcilePendingPayments,
} from '../purchase-payments.service.ts';

const { payments, ports } = testPayments('CARD_PROVIDER');

describe('purchase intents paid at a provider (card, crypto)', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  let seq = 1n;
  let buyers = 0;
  const db = () => env.database.db;

  before(async () => {
    env = await setupTest({}, { ports });
    await env.insertNetwork(31337);
    ({ organizationId, admin } = await env.createTenant());
  });
  after(() => env.close());
  afterEach(() => {
    payments.failOpen = undefined;
    payments.unreachable = undefined;
    payments.defaultSeconds = undefined;
  });

  /** A CARD_PROVIDER listing of `count` unminted ERC-721 items at 1,250 cents each. */
  const cardListing = async (count = 2, policy: Record<string, unknown> = { type: 'FCFS' }) => {
    const collection = await insertCollection(db(), { organizationId, deployedOn: 'FlexibleERC721' });
    const first = seq;
    seq += BigInt(count);
    await insertItems(db(), count, { collectionId: collection.id, organizationId, firstTokenId: first });
    const listing = await createPaidListing(env, admin.token, {
      collection_id: collection.id,
      max_quantity_per_tx: count,
      policy,
    });
    await db().updateTable('listings').set({ price: '1250' }).where('id', '=', listing.id).execute();
    return listing;
  };
  const buy = (listingId: string, quantity = 1) =>
    env.call('POST', '/v1/public/purchase-intents', {
      body: {
        listing_id: listingId,
        quantity,
        provider: 'CARD_PROVIDER',
        buyer: { email: `card-buyer-${++buyers}@example.com` },
      },
      ip: freshIp(),
    });
  const bought = async (listingId: string, quantity = 1) => {
    const response = await buy(listingId, quantity);
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  const row = (id: string) =>
    db().selectFrom('purchase_intents').selectAll().where('id', '=', id).executeTakeFirst();
  const held = async (listingId: string) =>
    (
      await db()
        .selectFrom('listings')
        .select(['quantity_held', 'quantity_sold'])
        .where('id', '=', listingId)
        .executeTakeFirstOrThrow()
    ).quantity_held;
  const pastDue = (id: string) =>
    db()
      .updateTable('purchase_intents')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', id)
      .execute();
  const paid = (id: string, overrides: Partial<Parameters<typeof recordPayment>[3]> = {}) =>
    db()
      .transaction()
      .execute((tx) =>
        recordPayment(tx, env.ctx, id, {
          provider: 'CARD_PROVIDER',
          reference: payments.referenceOf(id),
          amount: 2500n,
          currency: 'usd',
          ...overrides,
        }),
      );

  describe('create', () => {
    it("opens the provider's session once the hold is committed, stores its reference and answers its data", async () => {
      const listing = await cardListing();
      const created = await bought(listing.id, 2);
      assert.equal(created.status, 'PENDING');
      assert.deepEqual(created.data, { session: payments.referenceOf(created.id) });
      assert.deepEqual(created.provider_price, { amount: '2500', currency: 'USD' });
      const stored = await row(created.id);
      assert.equal(stored?.card_provider_payment_intent_id, payments.referenceOf(created.id));
      assert.equal(payments.sessions.get(payments.referenceOf(created.id))?.amount, 2500n);
      assert.equal(await held(listing.id), 2);
    });

    it('answers 502 UPSTREAM_FAILED when the provider fails, and leaves no intent and no hold behind', async () => {
      const listing = await cardListing();
      for (const failure of [
        new ApiError('UPSTREAM_FAILED', 'the card provider answered 500'),
        new Error('socket hang up'),
      ]) {
        payments.failOpen = failure;
        const before = payments.calls.open.length;
        const response = await buy(listing.id);
        assertError(response, 502, 'UPSTREAM_FAILED');
        assert.equal(payments.calls.open.length, before + 1);
        const failedId = payments.calls.open.at(-1)!;
        assert.equal(await row(failedId), undefined, 'the intent is gone');
        assert.equal(await held(listing.id), 0, 'nothing stays held');
      }
      // The listing sells as before.
      assert.equal((await bought(listing.id)).status, 'PENDING');
    });

    it("answers the provider's refusal as it is (422 NOT_READY) and holds nothing", async () => {
      const listing = await cardListing();
      payments.failOpen = new ApiError('CARD_PROVIDER_NOT_READY', 'the card-provider account is not set up');
      assertError(await buy(listing.id), 422, 'CARD_PROVIDER_NOT_READY');
      assert.equal(await held(listing.id), 0);
    });

    it('refuses a provider the organization has not set up (422 CRYPTO_PROVIDER_NOT_READY) before holding anything', async () => {
      const listing = await cardListing();
      await db()
        .updateTable('listings')
        .set({ payment_providers: ['CRYPTO_PROVIDER'] })
        .where('id', '=', listing.id)
        .execute();
      const response = await env.call('POST', '/v1/public/purchase-intents', {
        body: {
          listing_id: listing.id,
          quantity: 1,
          provider: 'CRYPTO_PROVIDER',
          buyer: { email: 'crypto@example.com' },
        },
        ip: freshIp(),
      });
      assertError(response, 422, 'CRYPTO_PROVIDER_NOT_READY');
      assert.equal(await held(listing.id), 0);
    });

    it("holds for the policy's length, else the provider's default, else 900 s", async () => {
      const ttl = (created: { expiration: string }) =>
        Math.round((new Date(created.expiration).getTime() - Date.now()) / 1000);
      payments.defaultSeconds = 1800;
      const providerDefault = await bought((await cardListing(1)).id);
      assert.ok(Math.abs(ttl(providerDefault) - 1800) <= 5, `${ttl(providerDefault)}`);
      const policyLength = await bought(
        (await cardListing(1, { type: 'FCFS', payment_session_duration: { timeout_seconds: 120 } })).id,
      );
      assert.ok(Math.abs(ttl(policyLength) - 120) <= 5, `${ttl(policyLength)}`);
      payments.defaultSeconds = undefined;
      const listing = await cardListing(1);
      const fallback = await bought(listing.id);
      assert.ok(Math.abs(ttl(fallback) - 900) <= 5, `${ttl(fallback)}`);
      const answered = await env.call('GET', `/v1/listings/${listing.id}`, { token: admin.token });
      assert.equal(answered.json().policy.payment_session_duration.timeout_seconds, 900);
    });
  });

  describe('payments reported by the provider', () => {
    it('confirms a PENDING intent once; a second report is a DUPLICATE', async () => {
      const listing = await cardListing();
      const created = await bought(listing.id, 2);
      assert.equal(await paid(created.id), 'CONFIRMED');
      assert.equal(await paid(created.id), 'DUPLICATE');
      const stored = await row(created.id);
      assert.equal(stored?.status, 'CONFIRMED');
      assert.equal(stored?.fulfillment_status, 'ASSIGNED');
      assert.ok(await queuedJob(env, `deliver_purchase_intent:${created.id}`));
    });

    it('changes nothing for another amount, currency, session or provider, or an unknown intent', async () => {
      const listing = await cardListing();
      const created = await bought(listing.id, 2);
      assert.equal(await paid(created.id, { amount: 2499n }), 'MISMATCH');
      assert.equal(await paid(created.id, { currency: 'EUR' }), 'MISMATCH');
      assert.equal(await paid(created.id, { reference: 'pi_someone_else' }), 'MISMATCH');
      assert.equal(await paid(created.id, { provider: 'CRYPTO_PROVIDER' }), 'MISMATCH');
      assert.equal(await paid('01a20000-0000-7000-8000-000000000000'), 'UNKNOWN');
      assert.equal((await row(created.id))?.status, 'PENDING');
      assert.equal(await held(listing.id), 2);
    });

    it('makes an intent that had expired UNRESOLVED and delivers nothing', async () => {
      const listing = await cardListing();
      const created = await bought(listing.id, 2);
      await pastDue(created.id);
      assert.equal(await expireIntentWithProvider(db(), env.ctx, created.id), true);
      assert.equal(await paid(created.id), 'UNRESOLVED');
      assert.equal(await paid(created.id), 'DUPLICATE');
      assert.equal((await row(created.id))?.status, 'UNRESOLVED');
      assert.equal(await queuedJob(env, `deliver_purchase_intent:${created.id}`), undefined);
    });

    it('expires a PENDING intent whose session the provider closed, and nothing else', async () => {
      const listing = await cardListing();
      const created = await bought(listing.id);
      const closed = (reference = payments.referenceOf(created.id)) =>
        db()
          .transaction()
          .execute((tx) =>
            recordPaymentClosed(tx, env.ctx, created.id, { provider: 'CARD_PROVIDER', reference }),
          );
      assert.equal(await closed('pi_someone_else'), false);
      assert.equal(await closed(), true);
      assert.equal(await closed(), false);
      assert.equal((await row(created.id))?.status, 'EXPIRED');
      assert.equal(await held(listing.id), 0);
    });
  });

  describe('expiry, cancellation and reconciliation ask the provider', () => {
    it('confirms at expiry an intent the provider says was paid (its event was missed)', async () => {
      const listing = await cardListing();
      const created = await bought(listing.id);
      payments.pay(created.id);
      await pastDue(created.id);
      assert.equal(await expireDueIntents(db(), env.ctx), 0);
      assert.equal((await row(created.id))?.status, 'CONFIRMED');
    });

    it('cancels a session still open at the provider before it expires the intent', async () => {
      const listing = await cardListing();
      const created = await bought(listing.id);
      await pastDue(created.id);
      assert.equal(await expireDueIntents(db(), env.ctx), 1);
      assert.ok(payments.calls.cancel.includes(created.id));
      assert.equal(payments.sessions.get(payments.referenceOf(created.id))?.state, 'CLOSED');
      assert.equal((await row(created.id))?.status, 'EXPIRED');
      assert.equal(await held(listing.id), 0);
    });

    it('keeps the hold while the provider cannot be reached, and expires the intent once it can', async () => {
      const listing = await cardListing();
      const created = await bought(listing.id);
      await pastDue(created.id);
      payments.unreachable = new Error('connect ECONNREFUSED');
      await expireDueIntents(db(), env.ctx);
      await assert.rejects(expireIntentWithProvider(db(), env.ctx, created.id), /ECONNREFUSED/);
      assert.equal((await row(created.id))?.status, 'PENDING');
      assert.equal(await held(listing.id), 1);
      payments.unreachable = undefined;
      assert.equal(await expireIntentWithProvider(db(), env.ctx, created.id), true);
      assert.equal(await held(listing.id), 0);
    });

    it("a buyer's cancel ends the hold at once and queues the session's cancel; a payment that slipped in is UNRESOLVED", async () => {
      const listing = await cardListing();
      const created = await bought(listing.id);
      const cancelled = await env.call('DELETE', `/v1/public/purchase-intents/${created.id}`, {
        headers: { 'x-client-token': created.client_token },
      });
      assert.equal(cancelled.statusCode, 204, cancelled.body);
      assert.equal(await held(listing.id), 0);
      assert.ok(await queuedJob(env, `cancel_payment_session:${created.id}`));
      payments.pay(created.id);
      await cancelPaymentSession(db(), env.ctx, created.id);
      assert.equal((await row(created.id))?.status, 'UNRESOLVED');
    });

    it("a cancelled listing's card intents get their sessions cancelled", async () => {
      const listing = await cardListing();
      const created = await bought(listing.id);
      const cancelled = await env.call('POST', `/v1/listings/${listing.id}/cancel`, { token: admin.token });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.ok(await queuedJob(env, `cancel_payment_session:${created.id}`));
      await cancelPaymentSession(db(), env.ctx, created.id);
      assert.equal(payments.sessions.get(payments.referenceOf(created.id))?.state, 'CLOSED');
      assert.equal((await row(created.id))?.status, 'CANCELLED');
    });

    it('reconciliation confirms a payable intent the provider says was paid, and leaves open ones open', async () => {
      const listing = await cardListing(2);
      const paidOne = await bought(listing.id);
      const openOne = await bought(listing.id);
      payments.pay(paidOne.id);
      const asked = await reconcilePendingPayments(db(), env.ctx, { olderThanSeconds: 0 });
      assert.ok(asked >= 2);
      assert.equal((await row(paidOne.id))?.status, 'CONFIRMED');
      assert.equal((await row(openOne.id))?.status, 'PENDING');
      assert.equal(payments.sessions.get(payments.referenceOf(openOne.id))?.state, 'OPEN');
    });
  });

  describe('provider events through the inbox', () => {
    const event = (eventId: string) => ({
      provider: 'card-provider',
      eventId,
      eventType: 'test.event',
      account: null,
      payload: JSON.stringify({ id: eventId }),
    });

    it('processes a verified event once, however often it is delivered', async () => {
      const seen: string[] = [];
      ports.providerEvents['card-provider'] = async (_db, _deps, row) => {
        seen.push(row.event_id);
      };
      try {
        assert.equal((await receiveProviderEvent(db(), env.ctx, event('evt_once'))).duplicate, false);
        assert.equal((await receiveProviderEvent(db(), env.ctx, event('evt_once'))).duplicate, true);
        assert.deepEqual(seen, ['evt_once']);
      } finally {
        delete ports.providerEvents['card-provider'];
      }
    });

    it('keeps an event whose processing failed, rolls back what it did, and processes it on retry', async () => {
      let fail = true;
      ports.providerEvents['card-provider'] = async (tx, _deps, row) => {
        await tx
          .updateTable('listings')
          .set({ price: '1' })
          .where('id', '=', JSON.parse(row.payload).listing)
          .execute();
        if (fail) throw new Error('the database blinked');
      };
      try {
        const listing = await cardListing(1);
        const incoming = { ...event('evt_retry'), payload: JSON.stringify({ listing: listing.id }) };
        const received = await receiveProviderEvent(db(), env.ctx, incoming);
        const stored = () =>
          db()
            .selectFrom('provider_events')
            .selectAll()
            .where('id', '=', received.id)
            .executeTakeFirstOrThrow();
        assert.equal((await stored()).processed_at, null);
        assert.equal((await stored()).last_error, 'the database blinked');
        const price = async () =>
          (
            await db()
              .selectFrom('listings')
              .select('price')
              .where('id', '=', listing.id)
              .executeTakeFirstOrThrow()
          ).price;
        assert.equal(await price(), '1250', 'the failed attempt changed nothing');
        // Not retried before its back-off, then retried and processed.
        assert.equal(await retryProviderEvents(db(), env.ctx), 0);
        await sql`UPDATE provider_events SET received_at = now() - interval '1 hour' WHERE id = ${received.id}`.execute(
          db(),
        );
        fail = false;
        assert.equal(await retryProviderEvents(db(), env.ctx), 1);
        assert.notEqual((await stored()).processed_at, null);
        assert.equal((await stored()).attempts, 2);
        assert.equal(await price(), '1');
        assert.equal(await retryProviderEvents(db(), env.ctx), 0, 'a processed event is not retried');
      } finally {
        delete ports.providerEvents['card-provider'];
      }
    });

    it(`leaves an event alone after ${MAX_PROVIDER_EVENT_ATTEMPTS} failed attempts`, async () => {
      ports.providerEvents['card-provider'] = async () => {
        throw new Error('always');
      };
      try {
        const received = await receiveProviderEvent(db(), env.ctx, event('evt_hopeless'));
        await sql`UPDATE provider_events SET received_at = now() - interval '10 days', attempts = ${MAX_PROVIDER_EVENT_ATTEMPTS} WHERE id = ${received.id}`.execute(
          db(),
        );
        assert.equal(await retryProviderEvents(db(), env.ctx), 0);
      } finally {
        delete ports.providerEvents['card-provider'];
      }
    });
  });
});
