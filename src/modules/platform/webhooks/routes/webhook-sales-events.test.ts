import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import {
  completedTransactionColumns,
  insertCollection,
  insertTransaction,
} from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { testPayments } from '../../../../../test/support/payment-sessions.ts';
import { createListing, createPaidListing } from '../../../../../test/support/sales.ts';
import { insertItems } from '../../../../../test/support/token-requests.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../../test/support/webhook-receiver.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../../db/enums.ts';
import type { Tx } from '../../../../db/executor.ts';
import type { CollectionRow } from '../../../../db/schema.ts';
import { settleListingsOfDeployment } from '../../../sales/listings/listings.service.ts';
import { confirmPurchaseIntent } from '../../../sales/purchase-intents/purchase-confirmation.service.ts';
import { deliverPurchaseIntent } from '../../../sales/purchase-intents/purchase-delivery.service.ts';
import {
  expireDueIntents,
  expireIntentWithProvider,
} from '../../../sales/purchase-intents/purchase-payments.service.ts';
import { settleTransaction } from '../../transactions/transaction-settled.task.ts';
import { deliverWebhook } from '../webhook-delivery.service.ts';

const SALES_EVENTS = WEBHOOK_EVENT_TYPES.filter(
  (t) => t.startsWith('listing.') || t.startsWith('purchase_intent.'),
);

interface Sent {
  type: string;
  data: Record<string, unknown>;
}

/**
 * listing.* and purchase_intent.* from the real sales flows (API, confirmation, delivery,
 * expiry, settlement), each delivered to an endpoint on loopback that verifies its signature with
 * standardwebhooks; every path that runs twice still writes one event.
 */
// CARD_PROVIDER intents here go through an in-memory provider (card payments have their own tests).
const { ports } = testPayments();

describe('webhook events of sales', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  let receiver: WebhookReceiver;
  let webhookId: string;
  let seq = 1n;
  let buyers = 0;
  const db = () => env.database.db;

  before(async () => {
    env = await setupTest({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { ports });
    await env.insertNetwork(31337);
    ({ organizationId, admin } = await env.createTenant());
    receiver = await startWebhookReceiver();
    const created = await env.call('POST', '/v1/webhooks', {
      token: admin.token,
      body: { url: receiver.url, events: SALES_EVENTS },
    });
    assert.equal(created.statusCode, 201, created.body);
    webhookId = created.json().id;
    receiver.secrets = [created.json().secret];
  });
  after(async () => {
    await receiver?.close();
    await env?.close();
  });

  const collection = (overrides: Partial<Parameters<typeof insertCollection>[1]> = {}) =>
    insertCollection(db(), { organizationId, deployedOn: 'FlexibleERC721', ...overrides });
  const items = (c: CollectionRow, count: number) => {
    const first = seq;
    seq += BigInt(count);
    return insertItems(db(), count, { collectionId: c.id, organizationId, firstTokenId: first });
  };
  const bought = async (body: Record<string, unknown>) => {
    const response = await env.call('POST', '/v1/public/purchase-intents', {
      body: {
        quantity: 1,
        provider: 'EMAIL_CLAIM',
        buyer: { email: `buyer-${++buyers}@example.com` },
        ...body,
      },
      ip: freshIp(),
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  const listingOf = async (id: string) =>
    (await env.call('GET', `/v1/listings/${id}`, { token: admin.token })).json();
  const intentOf = async (id: string) =>
    (await env.call('GET', `/v1/purchase-intents/${id}`, { token: admin.token })).json();
  const inTx = <T>(work: (tx: Tx) => Promise<T>) => db().transaction().execute(work);
  const confirm = (id: string) => inTx((tx) => confirmPurchaseIntent(tx, env.ctx, id));

  /**
   * The events about `resourceId` sent to the endpoint, in the order they happened: each pending
   * delivery is sent now, and each event must have reached the receiver exactly once, signed with
   * the endpoint's secret.
   */
  async function sent(resourceId: string): Promise<Sent[]> {
    const rows = await db()
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id', 'status'])
      .where('webhook_id', '=', webhookId)
      .where('resource_id', '=', resourceId)
      .orderBy('sequence')
      .execute();
    const events: Sent[] = [];
    for (const row of rows) {
      if (row.status === 'PENDING') assert.equal(await deliverWebhook(db(), env.ctx, row.id), 'succeeded');
      const got = receiver.received.filter((r) => r.id === row.event_id);
      assert.equal(got.length, 1, `event ${row.event_id} received once`);
      assert.deepEqual(got[0]!.verifiedWith, receiver.secrets, 'verifies with standardwebhooks');
      events.push({ type: got[0]!.payload.type, data: got[0]!.payload.data });
    }
    return events;
  }
  const types = (events: Sent[]) => events.map((e) => e.type);

  it('EMAIL_CLAIM sale: listing.created, then purchase_intent.created, .confirmed and .fulfilled once each; data is the API resource', async () => {
    const c = await collection();
    await items(c, 2);
    const listing = await createListing(env, admin.token, { collection_id: c.id });
    const [listed] = await sent(listing.id);
    assert.equal(listed?.type, 'listing.created');
    assert.deepEqual(listed.data, listing);
    assert.deepEqual(listed.data, await listingOf(listing.id));

    const intent = await bought({ listing_id: listing.id });
    assert.equal(intent.status, 'CONFIRMED');
    // A confirmation seen again and a delivery job run twice change nothing and emit nothing.
    assert.equal(await confirm(intent.id), 'ALREADY_CONFIRMED');
    await inTx((tx) => deliverPurchaseIntent(tx, env.ctx, intent.id));
    await inTx((tx) => deliverPurchaseIntent(tx, env.ctx, intent.id));
    const events = await sent(intent.id);
    assert.deepEqual(types(events), [
      'purchase_intent.created',
      'purchase_intent.confirmed',
      'purchase_intent.fulfilled',
    ]);
    const [created, confirmed, fulfilled] = events;
    assert.equal(created!.data.status, 'PENDING');
    assert.equal(created!.data.id, intent.id);
    assert.equal(confirmed!.data.status, 'CONFIRMED');
    assert.equal(confirmed!.data.fulfillment_status, 'ASSIGNED');
    assert.equal((confirmed!.data.item_ids as string[]).length, 1);
    const api = await intentOf(intent.id);
    assert.equal(api.fulfillment_status, 'COMPLETED');
    assert.deepEqual(fulfilled!.data, api);
    // One of two units sold: the listing is not completed.
    assert.deepEqual(types(await sent(listing.id)), ['listing.created']);
  });

  it('listing.completed once when its last unit is sold', async () => {
    const c = await collection();
    await items(c, 2);
    const listing = await createListing(env, admin.token, { collection_id: c.id, max_quantity_per_tx: 2 });
    await bought({ listing_id: listing.id });
    assert.deepEqual(types(await sent(listing.id)), ['listing.created']);
    await bought({ listing_id: listing.id });
    const events = await sent(listing.id);
    assert.deepEqual(types(events), ['listing.created', 'listing.completed']);
    const api = await listingOf(listing.id);
    assert.equal(api.status, 'COMPLETE');
    assert.equal(api.quantity_remaining, 0);
    assert.deepEqual(events[1]!.data, api);
  });

  it('listing.cancelled once on cancel; a payment for its cancelled intent is purchase_intent.unresolved once', async () => {
    const c = await collection();
    await items(c, 2);
    const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
    const intent = await bought({ listing_id: listing.id, provider: 'CARD_PROVIDER' });
    assert.equal(intent.status, 'PENDING');
    const cancelled = await env.call('POST', `/v1/listings/${listing.id}/cancel`, { token: admin.token });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assertError(
      await env.call('POST', `/v1/listings/${listing.id}/cancel`, { token: admin.token }),
      409,
      'INVALID_STATE',
    );
    const events = await sent(listing.id);
    assert.deepEqual(types(events), ['listing.created', 'listing.cancelled']);
    assert.deepEqual(events[1]!.data, await listingOf(listing.id));
    assert.equal(events[1]!.data.status, 'CANCELLED');

    assert.equal(await confirm(intent.id), 'UNRESOLVED');
    assert.equal(await confirm(intent.id), 'UNRESOLVED');
    const intentEvents = await sent(intent.id);
    assert.deepEqual(types(intentEvents), ['purchase_intent.created', 'purchase_intent.unresolved']);
    assert.deepEqual(intentEvents[1]!.data, await intentOf(intent.id));
  });

  it('purchase_intent.expired once by the job and the sweep, then .unresolved once for a payment after expiry', async () => {
    const c = await collection();
    await items(c, 1);
    const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
    const intent = await bought({ listing_id: listing.id, provider: 'CARD_PROVIDER' });
    await db()
      .updateTable('purchase_intents')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', intent.id)
      .execute();
    assert.equal(await expireIntentWithProvider(db(), env.ctx, intent.id), true);
    assert.equal(await expireIntentWithProvider(db(), env.ctx, intent.id), false);
    await expireDueIntents(db(), env.ctx);
    const events = await sent(intent.id);
    assert.deepEqual(types(events), ['purchase_intent.created', 'purchase_intent.expired']);
    assert.equal(events[0]!.data.status, 'PENDING');
    assert.deepEqual(events[1]!.data, await intentOf(intent.id));
    assert.equal(events[1]!.data.status, 'EXPIRED');

    assert.equal(await confirm(intent.id), 'UNRESOLVED');
    assert.equal(await confirm(intent.id), 'UNRESOLVED');
    const after = await sent(intent.id);
    assert.deepEqual(types(after), [
      'purchase_intent.created',
      'purchase_intent.expired',
      'purchase_intent.unresolved',
    ]);
    assert.deepEqual(after[2]!.data, await intentOf(intent.id));
    assert.equal(after[2]!.data.status, 'UNRESOLVED');
  });

  it('a swept expiry emits purchase_intent.expired too', async () => {
    const c = await collection();
    await items(c, 1);
    const listing = await createPaidListing(env, admin.token, { collection_id: c.id });
    const intent = await bought({ listing_id: listing.id, provider: 'CARD_PROVIDER' });
    await db()
      .updateTable('purchase_intents')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', intent.id)
      .execute();
    assert.ok((await expireDueIntents(db(), env.ctx)) >= 1);
    await expireDueIntents(db(), env.ctx);
    assert.equal(await expireIntentWithProvider(db(), env.ctx, intent.id), false);
    assert.deepEqual(types(await sent(intent.id)), ['purchase_intent.created', 'purchase_intent.expired']);
  });

  it('listing.cancelled once when the deployment of its PENDING_TX collection fails', async () => {
    const c = await collection({ contractAddress: null, deploymentStatus: 'PENDING' });
    await items(c, 1);
    const listing = await createListing(env, admin.token, { collection_id: c.id });
    assert.equal(listing.status, 'PENDING_TX');
    const transaction = await insertTransaction(db(), organizationId, {
      type: 'DEPLOY',
      ...completedTransactionColumns(Number(seq++), 'FAILURE'),
      contract_address: null,
    });
    await db()
      .updateTable('collections')
      .set({ deployment_transaction_id: transaction.id })
      .where('id', '=', c.id)
      .execute();
    await settleTransaction(db(), env.ctx, transaction.id);
    // The listings' part of the settlement run again finds nothing PENDING_TX.
    await inTx((tx) => settleListingsOfDeployment(tx, env.ctx, transaction));
    const events = await sent(listing.id);
    assert.deepEqual(types(events), ['listing.created', 'listing.cancelled']);
    assert.equal(events[0]!.data.status, 'PENDING_TX');
    assert.deepEqual(events[1]!.data, await listingOf(listing.id));
    assert.equal(events[1]!.data.status, 'CANCELLED');
  });
});
