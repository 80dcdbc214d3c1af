import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import {
  type CdpKey,
  type CoinbaseStandin,
  newCdpKey,
  type StandinLink,
  startCoinbaseStandin,
} from '../../../../../test/support/coinbase-standin.ts';
import { createListing, randomAddress } from '../../../../../test/support/sales.ts';
import { insertItems } from '../../../../../test/support/token-requests.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import { reconcilePendingPayments } from '../../../sales/purchase-intents/purchase-payments.service.ts';

const erc721 = platformContracts.FlexibleERC721;
const WEBHOOK_SECRET = 'whsec-crypto-flow-0123456789';

describe('a crypto sale (Coinbase Business payment link) on a real chain', () => {
  let flow: FlowTest;
  let standin: CoinbaseStandin;
  let key: CdpKey;
  before(async () => {
    standin = await startCoinbaseStandin();
    flow = await setupFlowTest({ COINBASE_BUSINESS_API_BASE: standin.url });
    standin.transport = async (delivery) => {
      const response = await flow.env.app.inject({
        method: 'POST',
        url: new URL(delivery.url).pathname,
        headers: delivery.headers,
        payload: delivery.body,
      });
      return { status: response.statusCode, body: response.body };
    };
    key = newCdpKey();
    standin.registerKey(key);
    const put = await flow.env.call('PUT', '/v1/crypto-provider', {
      token: flow.admin.token,
      body: { api_key_id: key.apiKeyId, api_key_secret: key.privateKeyPem, webhook_secret: WEBHOOK_SECRET },
    });
    assert.equal(put.statusCode, 200, put.body);
    standin.subscribe(key.apiKeyId, { url: put.json().webhook_url, secret: WEBHOOK_SECRET });
  });
  after(async () => {
    await flow?.close();
    await standin?.close();
  });
  const db = () => flow.env.database.db;

  const intentOf = async (id: string) =>
    (await flow.env.call('GET', `/v1/purchase-intents/${id}`, { token: flow.admin.token })).json();
  const heldOf = async (listingId: string) =>
    (
      await db()
        .selectFrom('listings')
        .select(['quantity_held', 'quantity_sold'])
        .where('id', '=', listingId)
        .executeTakeFirstOrThrow()
    ).quantity_held;

  /** A deployed collection with `count` unminted items, listed for 12.50 USD through CRYPTO_PROVIDER. */
  async function cryptoListing(count = 1) {
    const { address, collection } = await flow.deployCollection('ERC721');
    const items = await insertItems(db(), count, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    const listing = await createListing(flow.env, flow.admin.token, {
      collection_id: collection.id,
      currency: 'USD',
      price: '1250',
      payment_providers: ['CRYPTO_PROVIDER'],
      max_quantity_per_tx: count,
    });
    return { address, collection, items, listing };
  }

  const buy = (listingId: string, buyer: Record<string, string>, quantity = 1) =>
    flow.env.call('POST', '/v1/public/purchase-intents', {
      body: { listing_id: listingId, quantity, provider: 'CRYPTO_PROVIDER', buyer },
      ip: freshIp(),
    });

  const linkOfIntent = async (intentId: string): Promise<StandinLink> => {
    const intent = await intentOf(intentId);
    const link = standin.links.get(intent.crypto_provider_charge_id);
    assert.ok(link, `no payment link for ${JSON.stringify(intent)}`);
    return link;
  };

  it('opens a payment link for the price; paid on its page, the signed event confirms the intent and the token is minted to the buyer', async () => {
    const { address, collection, items, listing } = await cryptoListing();
    const buyer = randomAddress();
    const created = await buy(listing.id, { eth_address: buyer });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.equal(body.status, 'PENDING');
    assert.deepEqual(body.provider_price, { amount: '1250', currency: 'USD' });
    assert.deepEqual(Object.keys(body.data).sort(), ['expires_at', 'payment_link_id', 'url']);
    assert.equal(body.data.expires_at, body.expiration);
    const link = standin.links.get(body.data.payment_link_id) as StandinLink;
    assert.ok(link, 'the link exists at the provider');
    assert.equal(body.data.url, link.url);
    assert.ok(link.url.startsWith(`${standin.url}/pay/`));
    assert.deepEqual(
      [link.amount, link.currency, link.network, link.metadata, link.expiresAt],
      ['12.50', 'USDC', 'base', { purchase_intent_id: body.id }, body.expiration],
    );
    assert.ok(link.description.includes(collection.name), link.description);
    assert.equal((await intentOf(body.id)).crypto_provider_charge_id, link.id);

    // The buyer pays on the hosted page: the stand-in sends payment_link.payment.success.
    const page = await fetch(link.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /12\.50/);
    const paid = await fetch(link.url, { method: 'POST' });
    assert.match(await paid.text(), /answered 200/);
    assert.equal((await intentOf(body.id)).status, 'CONFIRMED');

    const done = await flow.until(async () => {
      const intent = await intentOf(body.id);
      return intent.fulfillment_status === 'COMPLETED' ? intent : undefined;
    }, 'the delivery to complete');
    const owner = await flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'ownerOf',
      args: [BigInt(items[0]!.token_id!)],
    });
    assert.equal(owner, buyer);
    assert.equal(done.transaction_ids.length, 1);

    // The same delivery again: processed once.
    const again = await standin.send(standin.deliveries.at(-1)!);
    assert.equal(again.status, 200, again.body);
    assert.equal(JSON.parse(again.body).duplicate, true);
  });

  it('delivers by email claim when the buyer gave only an email', async () => {
    const { listing } = await cryptoListing();
    const created = await buy(listing.id, { email: 'crypto-buyer@example.com' });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().fulfillment_method, 'EMAIL');
    const answer = await standin.settle(created.json().data.payment_link_id, 'payment_link.payment.success');
    assert.equal(answer.status, 200, answer.body);
    const done = await flow.until(async () => {
      const intent = await intentOf(created.json().id);
      return intent.fulfillment_status === 'COMPLETED' ? intent : undefined;
    }, 'the email claim to be sent');
    assert.equal(done.status, 'CONFIRMED');
    assert.equal(done.item_claim_ids.length, 1);
  });

  for (const eventType of ['payment_link.payment.failed', 'payment_link.payment.expired'] as const) {
    it(`${eventType} expires the PENDING intent and releases its hold`, async () => {
      const { listing } = await cryptoListing();
      const created = await buy(listing.id, { eth_address: randomAddress() });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(await heldOf(listing.id), 1);
      const answer = await standin.settle(created.json().data.payment_link_id, eventType);
      assert.equal(answer.status, 200, answer.body);
      assert.equal((await intentOf(created.json().id)).status, 'EXPIRED');
      assert.equal(await heldOf(listing.id), 0);
    });
  }

  it('a payment reported after the intent expired makes it UNRESOLVED: nothing is delivered', async () => {
    const { listing } = await cryptoListing();
    const created = await buy(listing.id, { eth_address: randomAddress() });
    const linkId = created.json().data.payment_link_id;
    await standin.settle(linkId, 'payment_link.payment.expired');
    assert.equal((await intentOf(created.json().id)).status, 'EXPIRED');
    const answer = await standin.settle(linkId, 'payment_link.payment.success');
    assert.equal(answer.status, 200, answer.body);
    const intent = await intentOf(created.json().id);
    assert.equal(intent.status, 'UNRESOLVED');
    assert.deepEqual(intent.transaction_ids, []);
    assert.equal(await heldOf(listing.id), 0);
  });

  it('answers 502 UPSTREAM_FAILED and holds nothing when the provider is down or refuses', async () => {
    const { listing } = await cryptoListing();
    standin.down = true;
    try {
      assertError(await buy(listing.id, { eth_address: randomAddress() }), 502, 'UPSTREAM_FAILED');
    } finally {
      standin.down = false;
    }
    standin.failures.push({ status: 400, message: 'Amount exceeds the account limit' });
    const refused = await buy(listing.id, { eth_address: randomAddress() });
    const error = assertError(refused, 502, 'UPSTREAM_FAILED');
    assert.match(error.detail, /Amount exceeds the account limit/);
    assert.equal(await heldOf(listing.id), 0);
    const pending = await db()
      .selectFrom('purchase_intents')
      .select('id')
      .where('listing_id', '=', listing.id)
      .where('status', '=', 'PENDING')
      .execute();
    assert.deepEqual(pending, []);
    const ok = await buy(listing.id, { eth_address: randomAddress() });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it("changes nothing for an event whose link is another organization's, or not the intent's", async () => {
    const { listing } = await cryptoListing(2);
    const created = await buy(listing.id, { eth_address: randomAddress() });
    const link = await linkOfIntent(created.json().id);
    // Another organization, set up with its own key and secret, forwards this organization's link.
    const other = await flow.env.createTenant();
    const otherKey = newCdpKey();
    standin.registerKey(otherKey);
    const put = await flow.env.call('PUT', '/v1/crypto-provider', {
      token: other.admin.token,
      body: {
        api_key_id: otherKey.apiKeyId,
        api_key_secret: otherKey.privateKeyPem,
        webhook_secret: 'other-secret',
      },
    });
    assert.equal(put.statusCode, 200, put.body);
    standin.subscribe(otherKey.apiKeyId, { url: put.json().webhook_url, secret: 'other-secret' });
    const forwarded = standin.delivery(
      { ...link, status: 'COMPLETED', apiKeyId: otherKey.apiKeyId },
      'payment_link.payment.success',
    );
    assert.equal((await standin.send(forwarded)).status, 200);
    // This organization's own event for a link that is not the intent's (the id differs).
    const second = await buy(listing.id, { eth_address: randomAddress() });
    const secondLink = await linkOfIntent(second.json().id);
    const mismatched = standin.delivery(
      { ...secondLink, status: 'COMPLETED', metadata: { purchase_intent_id: created.json().id } },
      'payment_link.payment.success',
    );
    assert.equal((await standin.send(mismatched)).status, 200);
    // Paid less than the price.
    const cheap = standin.delivery(
      { ...link, status: 'COMPLETED', amount: '0.01' },
      'payment_link.payment.success',
    );
    assert.equal((await standin.send(cheap)).status, 200);
    for (const id of [created.json().id, second.json().id])
      assert.equal((await intentOf(id)).status, 'PENDING');
    assert.equal(await heldOf(listing.id), 2);
    // Acknowledged and processed (ignored), not failing and retried.
    const events = await db()
      .selectFrom('provider_events')
      .select(['event_id', 'processed_at', 'last_error'])
      .where(
        'event_id',
        'in',
        [forwarded, mismatched, cheap].map((d) => d.headers['x-hook0-id']!),
      )
      .execute();
    assert.equal(events.length, 3);
    for (const event of events)
      assert.deepEqual([event.processed_at !== null, event.last_error], [true, null]);
  });

  it('confirms a paid link whose event never came when reconciliation asks the provider', async () => {
    const { listing } = await cryptoListing();
    const created = await buy(listing.id, { eth_address: randomAddress() });
    const link = standin.links.get(created.json().data.payment_link_id) as StandinLink;
    link.status = 'COMPLETED';
    await reconcilePendingPayments(db(), flow.env.ctx, { olderThanSeconds: 0 });
    const intent = await intentOf(created.json().id);
    assert.equal(intent.status, 'CONFIRMED');
    assert.equal(intent.crypto_provider_charge_id, link.id);
  });

  it('deactivates the link when the buyer cancels the intent', async () => {
    const { listing } = await cryptoListing();
    const created = await buy(listing.id, { eth_address: randomAddress() });
    const cancelled = await flow.env.call('DELETE', `/v1/public/purchase-intents/${created.json().id}`, {
      headers: { 'x-client-token': created.json().client_token },
      ip: freshIp(),
    });
    assert.equal(cancelled.statusCode, 204, cancelled.body);
    await flow.until(
      async () =>
        standin.links.get(created.json().data.payment_link_id)?.status === 'DEACTIVATED' ? true : undefined,
      'the payment link to be deactivated',
    );
  });

  it('refuses CRYPTO_PROVIDER listings of an organization without set-up (422 CRYPTO_PROVIDER_NOT_READY)', async () => {
    const { collection } = await flow.deployCollection('ERC721');
    await flow.env.call('DELETE', '/v1/crypto-provider', { token: flow.admin.token });
    try {
      const response = await flow.env.call('POST', '/v1/listings', {
        token: flow.admin.token,
        body: {
          collection_id: collection.id,
          currency: 'USD',
          price: '1250',
          max_quantity_per_tx: 1,
          payment_providers: ['CRYPTO_PROVIDER'],
          policy: { type: 'FCFS' },
        },
      });
      assertError(response, 422, 'CRYPTO_PROVIDER_NOT_READY');
    } finally {
      await flow.env.call('PUT', '/v1/crypto-provider', {
        token: flow.admin.token,
        body: { api_key_id: key.apiKeyId, api_key_secret: key.privateKeyPem, webhook_secret: WEBHOOK_SECRET },
      });
    }
  });
});
