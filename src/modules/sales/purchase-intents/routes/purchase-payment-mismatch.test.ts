import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { testPayments } from '../../../../../test/support/payment-sessions.ts';
import { createPaidListing } from '../../../../../test/support/sales.ts';
import { insertItems } from '../../../../../test/support/token-requests.ts';
import {
  eventsFor,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../../../../test/support/webhook-receiver.ts';
import { type ReportedPayment, recordPayment } from '../purchase-confirmation.service.ts';

const { payments, ports } = testPayments('CARD_PROVIDER');

/**
 * A payment a provider reports that does not match its intent confirms nothing, and it is not
 * only logged: the intent keeps it as its payment_mismatch, the organization is told by
 * purchase_intent.payment_mismatch, and the admin list finds such intents.
 */
describe('a payment that does not match its purchase intent is recorded on it', () => {
  let env: TestEnv;
  let admin: Actor;
  let organizationId: string;
  let receiver: WebhookReceiver;
  let webhookId: string;
  let seq = 1n;
  const db = () => env.database.db;

  before(async () => {
    env = await setupTest({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { ports });
    await env.insertNetwork(31337);
    ({ organizationId, admin } = await env.createTenant());
    receiver = await startWebhookReceiver();
    const subscribed = await env.call('POST', '/v1/webhooks', {
      token: admin.token,
      body: { url: receiver.url, events: ['purchase_intent.payment_mismatch', 'purchase_intent.confirmed'] },
    });
    assert.equal(subscribed.statusCode, 201, subscribed.body);
    webhookId = subscribed.json().id;
  });
  after(async () => {
    await env?.close();
    await receiver?.close();
  });

  /** A PENDING card intent of one unit at 12.50 USD. */
  const intent = async (): Promise<string> => {
    const collection = await insertCollection(db(), { organizationId, deployedOn: 'FlexibleERC721' });
    await insertItems(db(), 1, { collectionId: collection.id, organizationId, firstTokenId: seq++ });
    const listing = await createPaidListing(env, admin.token, { collection_id: collection.id });
    await db().updateTable('listings').set({ price: '1250' }).where('id', '=', listing.id).execute();
    const created = await env.call('POST', '/v1/public/purchase-intents', {
      body: {
        listing_id: listing.id,
        quantity: 1,
        provider: 'CARD_PROVIDER',
        buyer: { email: 'buyer@example.test' },
      },
      ip: freshIp(),
    });
    assert.equal(created.statusCode, 201, created.body);
    return created.json().id;
  };
  const report = (id: string, overrides: Partial<ReportedPayment> = {}) =>
    db()
      .transaction()
      .execute((tx) =>
        recordPayment(tx, env.ctx, id, {
          provider: 'CARD_PROVIDER',
          reference: payments.referenceOf(id),
          amount: 1250n,
          currency: 'usd',
          ...overrides,
        }),
      );
  const read = async (id: string) => {
    const response = await env.call('GET', `/v1/purchase-intents/${id}`, { token: admin.token });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
  const listed = async (mismatch: boolean) => {
    const response = await env.call('GET', '/v1/purchase-intents', {
      token: admin.token,
      query: { payment_mismatch: String(mismatch), limit: '100' },
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json().results as { id: string }[]).map((r) => r.id);
  };

  it('keeps the payment, its reason and when it came; says so once; confirms nothing', async () => {
    const id = await intent();
    assert.equal((await read(id)).payment_mismatch, null);
    assert.equal(await report(id, { amount: 1200n }), 'MISMATCH');
    const mismatched = await read(id);
    assert.equal(mismatched.status, 'PENDING');
    const { received_at: receivedAt, ...rest } = mismatched.payment_mismatch;
    assert.deepEqual(rest, {
      provider: 'CARD_PROVIDER',
      reference: payments.referenceOf(id),
      amount: '1200',
      currency: 'usd',
      reason: "paid 1200, but the intent's price is 1250 (smallest units of USD)",
    });
    assert.ok(Math.abs(Date.parse(receivedAt) - Date.now()) < 60_000, receivedAt);
    // The same payment reported again (a re-delivery, reconciliation) records and says nothing more.
    assert.equal(await report(id, { amount: 1200n }), 'MISMATCH');
    assert.deepEqual((await read(id)).payment_mismatch, mismatched.payment_mismatch);
    const said = await eventsFor(db(), webhookId, id);
    assert.deepEqual(
      said.map((e) => e.type),
      ['purchase_intent.payment_mismatch'],
    );
    assert.deepEqual(said[0]!.data, mismatched);
  });

  it('names what does not match: the currency, the session, the provider', async () => {
    const reasons: Record<string, string> = {};
    for (const [what, overrides] of [
      ['currency', { currency: 'eur' }],
      ['session', { reference: 'pi_someone_else' }],
      ['provider', { provider: 'CRYPTO_PROVIDER' }],
    ] as const) {
      const id = await intent();
      assert.equal(await report(id, overrides), 'MISMATCH');
      reasons[what] = (await read(id)).payment_mismatch.reason;
    }
    assert.deepEqual(reasons, {
      currency: "paid in EUR, but the intent's price is in USD",
      session: `paid in session pi_someone_else, not the intent's ${reasons.session!.split(' ').at(-1)}`,
      provider: 'paid through CRYPTO_PROVIDER, but the intent is paid through CARD_PROVIDER',
    });
    assert.match(reasons.session!, /not the intent's session_/);
  });

  it('is what the admin list filters on; a matching payment later still confirms the intent', async () => {
    const clean = await intent();
    const mismatched = await intent();
    assert.equal(await report(mismatched, { amount: 1n }), 'MISMATCH');
    assert.ok((await listed(true)).includes(mismatched));
    assert.ok(!(await listed(true)).includes(clean));
    assert.ok((await listed(false)).includes(clean));
    assert.ok(!(await listed(false)).includes(mismatched));
    assert.equal(await report(mismatched), 'CONFIRMED');
    const confirmed = await read(mismatched);
    assert.equal(confirmed.status, 'CONFIRMED');
    assert.equal(confirmed.payment_mismatch.amount, '1', 'the mismatch stays on record');
  });

  it('refuses a payment_mismatch filter that is not a boolean with 400', async () => {
    const response = await env.call('GET', '/v1/purchase-intents', {
      token: admin.token,
      query: { payment_mismatch: 'sometimes' },
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().error.code, 'VALIDATION_FAILED');
  });
});
