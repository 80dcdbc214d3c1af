import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CARD_CHECKOUT_CSP, priceText } from '../src/modules/sales/listings/pages/checkout.ts';
import { CONTENT_SECURITY_POLICY } from '../src/web/web-scope.ts';
import { insertCollection } from './factories.ts';
import { type Actor, setupTest, type TestEnv } from './harness.ts';
import { createListing, createPaidListing } from './support/sales.ts';
import { insertItems } from './support/token-requests.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml' };

/**
 * The checkout page as the server renders it (the walks in Chromium: test/e2e/checkout-page.test.ts):
 * its headers, its escaping and the listing's facts; Stripe is allowed only on a card sale.
 */
describe('the checkout page (server side)', () => {
  let env: TestEnv;
  let admin: Actor;
  let organizationId: string;
  let seq = 1n;
  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    ({ organizationId, admin } = await env.createTenant());
  });
  after(() => env?.close());

  const listed = async (name: string, body: Record<string, unknown> = {}, paid = false) => {
    const collection = await insertCollection(env.database.db, {
      organizationId,
      name,
      deployedOn: 'FlexibleERC721',
    });
    const items = await insertItems(env.database.db, 2, {
      collectionId: collection.id,
      organizationId,
      firstTokenId: seq,
    });
    seq += 2n;
    return (paid ? createPaidListing : createListing)(env, admin.token, {
      item_ids: items.map((i) => i.id),
      ...body,
    });
  };
  const get = (url: string) => env.app.inject({ method: 'GET', url, headers: BROWSER });

  it('renders the listing with every value escaped, under the site CSP, its script from /assets', async () => {
    const listing = await listed('<script>alert("x")</script> & "Co"', { max_quantity_per_tx: 2 });
    const response = await get(`/checkout/${listing.id}`);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal(response.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
    assert.ok(!response.body.includes('<script>alert'), 'the name is escaped');
    assert.match(response.body, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; &amp; &quot;Co&quot;/);
    assert.match(
      response.body,
      /<script type="module" src="\/assets\/checkout\.[0-9a-f]{16}\.js"><\/script>/,
    );
    assert.doesNotMatch(response.body, /<script>|\sstyle=|\son[a-z]+="/, 'no inline script or style');
    assert.match(response.body, /<dd id="remaining">2 of 2<\/dd>/);
    assert.match(response.body, /<label for="quantity">Quantity \(1 to 2\)<\/label>/);
    assert.match(response.body, /<input id="quantity"[^>]*min="1" max="2"/);
    assert.match(response.body, /role="status" aria-live="polite"/);
    assert.match(response.body, /<input type="radio" name="provider" value="EMAIL_CLAIM" checked>/);

    const script = await env.app.inject({
      method: 'GET',
      url: /src="(\/assets\/checkout\.[0-9a-f]{16}\.js)"/.exec(response.body)![1]!,
    });
    assert.equal(script.statusCode, 200);
    assert.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');

    const status = await get(`/checkout/${listing.id}/status?intent=x`);
    assert.equal(status.statusCode, 200);
    for (const step of ['loading', 'unknown', 'pay-wallet', 'pay-card', 'pay-crypto', 'delivered', 'expired'])
      assert.match(status.body, new RegExp(`data-step="${step}"[^>]*hidden`));
  });

  it('allows Stripe.js, its frames and its API on a card sale only', async () => {
    const listing = await listed('Cards', {}, true);
    const response = await get(`/checkout/${listing.id}`);
    assert.equal(response.headers['content-security-policy'], CARD_CHECKOUT_CSP);
    const directives = Object.fromEntries(
      CARD_CHECKOUT_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]),
    );
    assert.deepEqual(directives, {
      'default-src': "'none'",
      'script-src': "'self' https://js.stripe.com https://*.js.stripe.com",
      'style-src': "'self'",
      'img-src': "'self' data: https:",
      'font-src': "'self'",
      'connect-src': "'self' https://api.stripe.com",
      'frame-src': 'https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com',
      'frame-ancestors': "'none'",
      'base-uri': "'none'",
      'form-action': "'self'",
    });
    assert.match(response.body, /value="CARD_PROVIDER"/);
    const status = await get(`/checkout/${listing.id}/status?intent=x`);
    assert.equal(status.headers['content-security-policy'], CARD_CHECKOUT_CSP);
  });

  it('answers an id that is no UUID with the 404 page, an unknown listing with its own 404 state', async () => {
    const invalid = await get('/checkout/..%2Fadmin');
    assert.equal(invalid.statusCode, 404);
    assert.match(invalid.body, /<h1>Page not found<\/h1>/);
    const unknown = await get('/checkout/0190a000-0000-7000-8000-000000000000');
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /<h1>This sale does not exist<\/h1>/);
    const unknownStatus = await get('/checkout/0190a000-0000-7000-8000-000000000000/status?intent=x');
    assert.equal(unknownStatus.statusCode, 404);
  });

  it('formats prices in their currency', () => {
    assert.equal(priceText(0n, 'USD', null), 'Free');
    assert.equal(priceText(1250n, 'USD', null), '$12.50');
    assert.equal(priceText(5n, 'EUR', null), '€0.05');
    assert.equal(priceText(1200n, 'EUR', null), '€12.00');
    assert.equal(priceText(10_000_000_000_000_000n, 'ETH', null), '0.01 ETH');
    assert.equal(priceText(2_500_000n, 'USDC', 6), '2.5 USDC');
    assert.equal(priceText(7n, 'ODD', null), '7 (base units of ODD)');
  });
});
