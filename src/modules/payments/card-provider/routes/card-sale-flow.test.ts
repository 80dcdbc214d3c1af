import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import {
  createPlatformAccount,
  enableFor,
  PLATFORM_KEYS,
  setUpCardProvider,
} from '../../../../../test/support/card-provider.ts';
import { activeHolder, createListing, randomAddress } from '../../../../../test/support/sales.ts';
import { type StripeStandin, startStripeStandin } from '../../../../../test/support/stripe-standin.ts';
import { findItemRow, insertItems } from '../../../../../test/support/token-requests.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import { expireIntentWithProvider } from '../../../sales/purchase-intents/purchase-payments.service.ts';
import { cardPaymentSessions } from '../card-payment-sessions.ts';

const erc721 = platformContracts.FlexibleERC721;

describe('a card sale end to end: Stripe stand-in, signed events, tokens on a real chain', () => {
  let flow: FlowTest;
  let standin: StripeStandin;
  let platformId: string;
  let accountId: string;
  before(async () => {
    standin = await startStripeStandin({
      secretKeys: [PLATFORM_KEYS.secretKey],
      publishableKeys: [PLATFORM_KEYS.publishableKey],
    });
    flow = await setupFlowTest({ STRIPE_API_BASE: standin.url });
    standin.webhook = {
      connectSecret: PLATFORM_KEYS.connectWebhookSecret,
      accountSecret: PLATFORM_KEYS.accountWebhookSecret,
      deliver: async (payload, headers) =>
        (
          await flow.env.app.inject({
            method: 'POST',
            url: `/v1/webhooks/card-provider/${platformId}`,
            payload,
            headers,
          })
        ).statusCode,
    };
    platformId = await createPlatformAccount(flow.env);
    accountId = await setUpCardProvider(flow.env, standin, flow.organizationId, flow.admin.token, platformId);
    const fee = await flow.env.call('PATCH', `/v1/organizations/${flow.organizationId}/payout-config`, {
      token: flow.env.platformAdmin.token,
      body: { platform_sale_fee: 500 },
    });
    assert.equal(fee.statusCode, 200, fee.body);
  });
  after(async () => {
    await flow?.close();
    await standin?.close();
  });
  const db = () => flow.env.database.db;
  const intentOf = async (id: string) =>
    (await flow.env.call('GET', `/v1/purchase-intents/${id}`, { token: flow.admin.token })).json();

  /** A deployed collection with `count` unminted items, listed for 15.00 USD a unit by card. */
  async function cardListing(count = 1, price = '1500') {
    const { address, collection } = await flow.deployCollection('ERC721');
    const items = await insertItems(db(), count, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    const listing = await createListing(flow.env, flow.admin.token, {
      collection_id: collection.id,
      currency: 'USD',
      price,
      max_quantity_per_tx: count,
      payment_providers: ['CARD_PROVIDER'],
    });
    return { address, items, listing };
  }

  const buy = (listingId: string, buyer: string, headers: Record<string, string> = {}, quantity = 1) =>
    flow.env.call('POST', '/v1/public/purchase-intents', {
      body: { listing_id: listingId, quantity, provider: 'CARD_PROVIDER', buyer: { eth_address: buyer } },
      headers,
      ip: freshIp(),
    });

  it('pays by card at the stand-in: a declined card leaves the intent payable; a paid one confirms it and the token is minted to the buyer', async () => {
    const { address, items, listing } = await cardListing(2);
    const buyer = randomAddress();
    const created = await buy(listing.id, buyer, {}, 2);
    assert.equal(created.statusCode, 201, created.body);
    const intent = created.json();
    assert.equal(intent.status, 'PENDING');
    assert.deepEqual(intent.provider_price, { amount: '3000', currency: 'USD' });
    assert.deepEqual(Object.keys(intent.data).sort(), [
      'account_id',
      'client_secret',
      'mode',
      'publishable_key',
      'session_id',
    ]);
    assert.equal(intent.data.account_id, accountId);
    assert.equal(intent.data.mode, 'TEST');
    assert.equal(intent.data.publishable_key, PLATFORM_KEYS.publishableKey);
    assert.equal(intent.data.session_id, intent.id);

    const stored = await intentOf(intent.id);
    const pi = standin.paymentIntents.get(stored.card_provider_payment_intent_id);
    assert.ok(pi, 'the PaymentIntent exists at the stand-in');
    assert.equal(pi.client_secret, intent.data.client_secret);
    assert.equal(pi.amount, 3000);
    assert.equal(pi.currency, 'usd');
    assert.equal(pi.application_fee_amount, 150, '5% of 30.00');
    assert.deepEqual(pi.metadata, { purchase_intent_id: intent.id });
    assert.deepEqual(pi.automatic_payment_methods, { enabled: true });
    assert.equal(pi._account, accountId, 'a direct charge on the connected account');
    const request = standin.requests.find(
      (r) => r.method === 'POST' && r.path === '/v1/payment_intents' && r.idempotencyKey === intent.id,
    );
    assert.ok(request, 'created with the intent id as its Idempotency-Key');
    assert.equal(request.stripeAccount, accountId);
    assert.equal(request.authorization, `Bearer ${PLATFORM_KEYS.secretKey}`);

    // Declined: 402 card_error, a payment_failed event; the intent stays PENDING and payable.
    const declined = await standin.confirm(pi.id, 'pm_card_chargeDeclined');
    assert.equal(declined.status, 402);
    assert.equal(declined.event?.type, 'payment_intent.payment_failed');
    assert.equal(standin.events.find((e) => e.event.id === declined.event?.id)?.status, 200);
    assert.equal((await intentOf(intent.id)).status, 'PENDING');

    // Paid (as Stripe.js would, with the publishable key and the client secret).
    const paid = await fetch(`${standin.url}/v1/payment_intents/${pi.id}/confirm`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${PLATFORM_KEYS.publishableKey}`,
        'stripe-account': intent.data.account_id,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ payment_method: 'pm_card_visa', client_secret: pi.client_secret }),
    });
    assert.equal(paid.status, 200);
    assert.equal(((await paid.json()) as { status: string }).status, 'succeeded');
    await standin.idle();
    const succeeded = standin.events.findLast((e) => e.event.type === 'payment_intent.succeeded');
    assert.equal(succeeded?.status, 200);
    assert.equal((await intentOf(intent.id)).status, 'CONFIRMED');

    const done = await flow.until(async () => {
      const current = await intentOf(intent.id);
      return current.fulfillment_status === 'COMPLETED' || current.fulfillment_status === 'EXCEPTION'
        ? current
        : undefined;
    }, 'the card purchase to be delivered');
    assert.equal(done.fulfillment_status, 'COMPLETED', JSON.stringify(done));
    for (const item of items) {
      const owner = await flow.chain.publicClient.readContract({
        address,
        abi: erc721.abi,
        functionName: 'ownerOf',
        args: [BigInt(item.token_id!)],
      });
      assert.equal(owner, buyer);
      assert.equal((await findItemRow(db(), item.id)).token_status, 'MINTED');
    }

    // The same event again: processed once, nothing more happens.
    assert.ok(succeeded);
    assert.equal(await standin.resend(succeeded.event), 200);
    const rows = await db()
      .selectFrom('provider_events')
      .select('attempts')
      .where('event_id', '=', succeeded.event.id)
      .execute();
    assert.deepEqual(rows, [{ attempts: 1 }]);
    const mints = await db()
      .selectFrom('mint_requests')
      .select('id')
      .where(
        'item_id',
        'in',
        items.map((i) => i.id),
      )
      .execute();
    assert.equal(mints.length, 2, 'each item minted once');
  });

  it('a retried create (same Idempotency-Key) makes one intent and one PaymentIntent; opened again, the same PaymentIntent', async () => {
    const { listing } = await cardListing(1);
    const buyer = randomAddress();
    const key = `retry-${Math.random()}`;
    const body = {
      listing_id: listing.id,
      quantity: 1,
      provider: 'CARD_PROVIDER',
      buyer: { eth_address: buyer },
    };
    const ip = freshIp();
    const first = await flow.env.call('POST', '/v1/public/purchase-intents', {
      body,
      headers: { 'idempotency-key': key },
      ip,
    });
    const second = await flow.env.call('POST', '/v1/public/purchase-intents', {
      body,
      headers: { 'idempotency-key': key },
      ip,
    });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(second.statusCode, 201, second.body);
    assert.equal(second.json().id, first.json().id);
    const id = first.json().id as string;
    const made = () =>
      [...standin.paymentIntents.values()].filter((pi) => pi.metadata.purchase_intent_id === id);
    assert.equal(made().length, 1);

    // The provider's own idempotency: the session opened again (a create retried after a crash).
    const row = await db()
      .selectFrom('purchase_intents')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const listingRow = await db()
      .selectFrom('listings')
      .selectAll()
      .where('id', '=', listing.id)
      .executeTakeFirstOrThrow();
    const again = await cardPaymentSessions.open(db(), flow.env.ctx, row, listingRow);
    assert.equal(again.reference, row.card_provider_payment_intent_id);
    assert.equal(made().length, 1);
  });

  it('answers 502 UPSTREAM_FAILED when the provider is down, and leaves no hold', async () => {
    const { items, listing } = await cardListing(1);
    const before = (await flow.env.call('GET', `/v1/public/listings/${listing.id}`)).json();
    standin.down = true;
    try {
      assertError(await buy(listing.id, randomAddress()), 502, 'UPSTREAM_FAILED');
    } finally {
      standin.down = false;
    }
    const afterwards = (await flow.env.call('GET', `/v1/public/listings/${listing.id}`)).json();
    assert.equal(afterwards.quantity_available, before.quantity_available);
    assert.equal(afterwards.quantity_available, 1);
    assert.equal((await activeHolder(flow.env, items[0]!.id))?.kind, 'LISTING', 'held by the listing alone');
    // And it sells once the provider is back.
    const created = await buy(listing.id, randomAddress());
    assert.equal(created.statusCode, 201, created.body);
  });

  it('expiry cancels the PaymentIntent at the stand-in; a success reported afterwards makes the intent UNRESOLVED and delivers nothing', async () => {
    const { items, listing } = await cardListing(1);
    const created = await buy(listing.id, randomAddress());
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as string;
    const piId = (await intentOf(id)).card_provider_payment_intent_id as string;
    await db()
      .updateTable('purchase_intents')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', id)
      .execute();
    // Expired by this call, or by the canceled event the cancel sends first: either way EXPIRED.
    await expireIntentWithProvider(db(), flow.env.ctx, id);
    await standin.idle();
    assert.equal((await intentOf(id)).status, 'EXPIRED');
    const pi = standin.paymentIntents.get(piId);
    assert.equal(pi?.status, 'canceled');
    // A canceled PaymentIntent cannot be paid any more.
    const refused = await standin.confirm(piId, 'pm_card_visa');
    assert.equal(refused.status, 400);

    // Stripe reports a success anyway (e.g. paid in the instant before the cancel).
    const { _account, ...object } = pi!;
    const event = await standin.emit(
      'payment_intent.succeeded',
      { ...object, status: 'succeeded', amount_received: object.amount },
      accountId,
    );
    assert.equal(standin.events.find((e) => e.event.id === event.id)?.status, 200);
    const unresolved = await intentOf(id);
    assert.equal(unresolved.status, 'UNRESOLVED');
    assert.deepEqual(unresolved.transaction_ids, []);
    assert.equal((await findItemRow(db(), items[0]!.id)).token_status, 'NOT_MINTED');
  });

  it("an event from another organization's connected account changes nothing", async () => {
    const other = await flow.env.createOrganization();
    const otherAdmin = await flow.env.createUser(other.id, 'ORG_ADMIN');
    const otherAccount = await setUpCardProvider(flow.env, standin, other.id, otherAdmin.token, platformId);
    const { listing } = await cardListing(1);
    const created = await buy(listing.id, randomAddress());
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as string;
    const pi = standin.paymentIntents.get((await intentOf(id)).card_provider_payment_intent_id)!;
    const { _account, ...object } = pi;
    const event = await standin.emit(
      'payment_intent.succeeded',
      { ...object, status: 'succeeded', amount_received: object.amount },
      otherAccount,
    );
    assert.equal(standin.events.find((e) => e.event.id === event.id)?.status, 200);
    assert.equal((await intentOf(id)).status, 'PENDING');
    // A canceled event from the other account does not end it either.
    await standin.emit('payment_intent.canceled', { ...object, status: 'canceled' }, otherAccount);
    assert.equal((await intentOf(id)).status, 'PENDING');
  });

  it('a platform account disabled for the organization stops new card intents (422) and holds nothing; enabled again, it sells', async () => {
    const { items, listing } = await cardListing(1);
    await enableFor(flow.env, flow.organizationId, platformId, false);
    try {
      assertError(await buy(listing.id, randomAddress()), 422, 'CARD_PROVIDER_NOT_READY');
      assert.equal((await activeHolder(flow.env, items[0]!.id))?.kind, 'LISTING');
    } finally {
      await enableFor(flow.env, flow.organizationId, platformId, true);
    }
    const created = await buy(listing.id, randomAddress());
    assert.equal(created.statusCode, 201, created.body);
  });

  // Last: it disconnects the organization.
  it('after DISCONNECT, a pending intent still expires and its PaymentIntent is cancelled; new card intents are refused', async () => {
    const { listing } = await cardListing(1);
    const created = await buy(listing.id, randomAddress());
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as string;
    const piId = (await intentOf(id)).card_provider_payment_intent_id as string;
    const disconnected = await flow.env.call('POST', '/v1/card-provider/commands', {
      token: flow.admin.token,
      body: { command: 'DISCONNECT' },
    });
    assert.equal(disconnected.statusCode, 201, disconnected.body);
    await db()
      .updateTable('purchase_intents')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', id)
      .execute();
    // Expired by this call, or by the canceled event the cancel sends first: either way EXPIRED.
    await expireIntentWithProvider(db(), flow.env.ctx, id);
    await standin.idle();
    assert.equal((await intentOf(id)).status, 'EXPIRED');
    assert.equal(standin.paymentIntents.get(piId)?.status, 'canceled');
    const second = await cardListing(1).catch((error: unknown) => error);
    assert.ok(second instanceof Error && /CARD_PROVIDER_NOT_READY/.test(second.message), String(second));
  });
});
