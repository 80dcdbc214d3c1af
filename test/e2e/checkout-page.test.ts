import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type Address, getAddress, parseAbi } from 'viem';
import { freePort } from '../../src/lib/net.ts';
import { expireIntentWithProvider } from '../../src/modules/sales/purchase-intents/purchase-payments.service.ts';
import { type FlowTest, setupFlowTest } from '../chain/flow.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { createPlatformAccount, PLATFORM_KEYS, setUpCardProvider } from '../support/card-provider.ts';
import { type CoinbaseStandin, newCdpKey, startCoinbaseStandin } from '../support/coinbase-standin.ts';
import { createListing, createPaidListing, randomAddress } from '../support/sales.ts';
import { type StripeStandin, startStripeStandin } from '../support/stripe-standin.ts';
import { insertItems } from '../support/token-requests.ts';

const ERC721 = parseAbi(['function ownerOf(uint256 tokenId) view returns (address)']);
const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts');
const PRICE = 20_000_000_000_000_000n; // 0.02 ETH

/** What the injected wallet (window.ethereum) was asked, and how it answers. */
interface WalletLog {
  methods: string[];
  switchedTo: string[];
  /** eth_sendTransaction answers "user rejected" (EIP-1193 4001) while set. */
  reject: boolean;
}

/**
 * The hosted checkout walked in real Chromium on a phone-sized screen, against the service on a
 * real port with a dev chain: a sale by mint voucher paid from an injected wallet (an EIP-1193
 * window.ethereum whose requests Playwright forwards to the anvil node, which signs for its
 * unlocked dev accounts), a free sale claimed by email, the listing's states, the form's checks
 * and the API's refusals. The page talks to no other origin.
 */
describe('the checkout page in a browser', { skip: browserUnavailable() }, () => {
  let t: FlowTest;
  let base: string;
  let browser: Browser;
  let freeCollection: { id: string; address: Address };
  let voucherCollection: { id: string; address: Address };
  let nextTokenId = 1n;
  const foreign: string[] = [];
  let stripe: StripeStandin;
  let coinbase: CoinbaseStandin;
  let connectedAccount: string;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stripe = await startStripeStandin({
      secretKeys: [PLATFORM_KEYS.secretKey],
      publishableKeys: [PLATFORM_KEYS.publishableKey],
    });
    coinbase = await startCoinbaseStandin();
    t = await setupFlowTest({
      PUBLIC_BASE_URL: base,
      STRIPE_API_BASE: stripe.url,
      COINBASE_BUSINESS_API_BASE: coinbase.url,
    });
    await t.env.app.listen({ port, host: '127.0.0.1' });
    // Crypto sales: the organization's CDP key and payment-link webhook subscription, whose signed
    // events the stand-in POSTs to the service.
    const key = newCdpKey();
    coinbase.registerKey(key);
    const crypto = await t.env.call('PUT', '/v1/crypto-provider', {
      token: t.admin.token,
      body: {
        api_key_id: key.apiKeyId,
        api_key_secret: key.privateKeyPem,
        webhook_secret: 'whsec-checkout-0123456789',
      },
    });
    assert.equal(crypto.statusCode, 200, crypto.body);
    coinbase.subscribe(key.apiKeyId, { url: crypto.json().webhook_url, secret: 'whsec-checkout-0123456789' });
    // Card sales: the organization's Standard account set up at the stand-in, whose signed events
    // reach the service's webhook over HTTP.
    const platformId = await createPlatformAccount(t.env);
    stripe.webhook = {
      url: `${base}/v1/webhooks/card-provider/${platformId}`,
      connectSecret: PLATFORM_KEYS.connectWebhookSecret,
      accountSecret: PLATFORM_KEYS.accountWebhookSecret,
    };
    connectedAccount = await setUpCardProvider(t.env, stripe, t.organizationId, t.admin.token, platformId);
    const free = await t.deployCollection('ERC721');
    freeCollection = { id: free.collection.id, address: free.address };
    const voucher = await t.deployCollection('ERC721', { variant: 'SignatureERC721' });
    voucherCollection = { id: voucher.collection.id, address: voucher.address };
    for (const [id, name] of [
      [freeCollection.id, 'Free Stickers'],
      [voucherCollection.id, 'Night <Owls> & Co'],
    ] as const)
      await t.env.database.db.updateTable('collections').set({ name }).where('id', '=', id).execute();
    await t.env.database.db
      .updateTable('organizations')
      .set({ payout_address: randomAddress() })
      .where('id', '=', t.organizationId)
      .execute();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await stripe?.close();
    await coinbase?.close();
  });

  /** `count` locked, unminted items of the collection, listed with `body`; answers the listing. */
  async function listed(collectionId: string, count: number, body: Record<string, unknown>, paid = false) {
    const items = await insertItems(t.env.database.db, count, {
      collectionId,
      organizationId: t.organizationId,
      firstTokenId: nextTokenId,
    });
    nextTokenId += BigInt(count);
    const create = paid ? createPaidListing : createListing;
    const listing = await create(t.env, t.admin.token, { item_ids: items.map((i) => i.id), ...body });
    return { listing, items };
  }

  async function openPage(
    wallet?: { account: Address; log: WalletLog },
    /** Collects the requests to Stripe.js (allowed when paying by card) instead of failing. */
    stripeLoads?: string[],
    /** Collects the pages of the payment link the buyer is sent to (paying by crypto). */
    linkPages?: string[],
  ): Promise<{
    context: BrowserContext;
    page: Page;
  }> {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    if (wallet) {
      let chainId = '0x1';
      await context.exposeFunction('__wallet', async (method: string, params: unknown[]) => {
        wallet.log.methods.push(method);
        switch (method) {
          case 'eth_requestAccounts':
          case 'eth_accounts':
            return { result: [wallet.account] };
          case 'eth_chainId':
            return { result: chainId };
          case 'wallet_switchEthereumChain':
            chainId = (params[0] as { chainId: string }).chainId;
            wallet.log.switchedTo.push(chainId);
            return { result: null };
          case 'eth_sendTransaction':
            if (wallet.log.reject) return { error: { code: 4001, message: 'User rejected the request.' } };
            break;
        }
        try {
          return {
            result: await t.chain.publicClient.request({ method: method as never, params: params as never }),
          };
        } catch (error) {
          return { error: { code: -32000, message: (error as Error).message } };
        }
      });
      // A window.ethereum as wallets inject it; its requests reach __wallet above (no network).
      await context.addInitScript(`window.ethereum = {
        async request({ method, params }) {
          const answer = await window.__wallet(method, params ?? []);
          if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
          return answer.result;
        },
      };`);
    }
    const page = await context.newPage();
    page.on('request', (request) => {
      const url = request.url();
      if (url.startsWith('data:')) return;
      if (stripeLoads && new URL(url).origin === 'https://js.stripe.com') stripeLoads.push(url);
      else if (linkPages && new URL(url).origin === coinbase.url) linkPages.push(url);
      else if (new URL(url).origin !== base) foreign.push(url);
    });
    page.on('pageerror', (error) => foreign.push(`page error: ${error.message}`));
    return { context, page };
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(ARTIFACTS, `checkout-${name}.png`), fullPage: true });
    const width = await page.evaluate('document.documentElement.scrollWidth');
    assert.ok(Number(width) <= 360, `${name}: the page is ${width}px wide on a 360px screen`);
  }
  const heading = (page: Page, name: string | RegExp) =>
    page.getByRole('heading', { name, exact: typeof name === 'string' }).waitFor();
  const focused = (page: Page) => page.locator('*:focus').getAttribute('id');
  const intentsOf = (listingId: string) =>
    t.env.database.db
      .selectFrom('purchase_intents')
      .selectAll()
      .where('listing_id', '=', listingId)
      .execute();

  it('sells by mint voucher: the injected wallet switches network, sends the redeem and the token ends owned by the buyer', async () => {
    const { listing, items } = await listed(voucherCollection.id, 1, {
      currency: 'ETH',
      price: PRICE.toString(),
      payment_providers: ['MINT_VOUCHER'],
    });
    const buyer = getAddress(t.chain.wallet(6).account.address);
    const log: WalletLog = { methods: [], switchedTo: [], reject: false };
    const { context, page } = await openPage({ account: buyer, log });
    await page.goto(`${base}/checkout/${listing.id}`);
    await heading(page, 'Buy from Night <Owls> & Co');
    assert.equal(await page.locator('#price').innerText(), '0.02 ETH each');
    assert.equal(await page.locator('#remaining').innerText(), '1 of 1');
    assert.equal(await page.getByLabel('Your email').isVisible(), false, 'a voucher needs no email');
    await shot(page, 'voucher-form');
    await page.getByRole('button', { name: 'Connect my wallet and buy' }).click();

    await heading(page, 'Waiting for your payment');
    assert.match(await page.locator('#paying-text').innerText(), /Your transaction 0x[0-9a-f]{64} was sent/);
    assert.deepEqual(log.switchedTo, ['0x7a69'], 'the wallet was asked to switch to network 31337');
    await heading(page, 'Done: your purchase is delivered');
    assert.equal(await page.locator('#delivered-text').innerText(), 'The token was minted to your wallet.');
    assert.equal(await page.locator('[data-field="status"]').innerText(), 'CONFIRMED');
    assert.equal(await page.locator('#cancel').isVisible(), false);
    await shot(page, 'voucher-delivered');

    const owner = await t.chain.publicClient.readContract({
      address: voucherCollection.address,
      abi: ERC721,
      functionName: 'ownerOf',
      args: [BigInt(items[0]!.token_id!)],
    });
    assert.equal(owner, buyer);
    const [intent] = await intentsOf(listing.id);
    assert.equal(intent!.status, 'CONFIRMED');
    assert.equal(intent!.fulfillment_status, 'COMPLETED');
    assert.equal(getAddress(intent!.eth_address!), buyer);
    // The client token stays in the tab's sessionStorage, never in a cookie or localStorage.
    const stored = await page.evaluate(
      '({ session: Object.keys(sessionStorage), local: localStorage.length, cookie: document.cookie })',
    );
    assert.deepEqual(stored, { session: [`checkout:${intent!.id}`], local: 0, cookie: '' });

    // Sold: the checkout says so.
    await page.goto(`${base}/checkout/${listing.id}`);
    await heading(page, 'Sold out');
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it('a refused transaction leaves the purchase payable, and the buyer cancels it', async () => {
    const { listing } = await listed(voucherCollection.id, 1, {
      currency: 'ETH',
      price: PRICE.toString(),
      payment_providers: ['MINT_VOUCHER'],
    });
    const buyer = getAddress(t.chain.wallet(7).account.address);
    const log: WalletLog = { methods: [], switchedTo: [], reject: true };
    const { context, page } = await openPage({ account: buyer, log });
    await page.goto(`${base}/checkout/${listing.id}`);
    await page.getByRole('button', { name: 'Connect my wallet and buy' }).click();
    await heading(page, 'Send the transaction');
    await page.locator('#status').getByText('Error: you declined the request in your wallet.').waitFor();
    assert.equal(await page.locator('[data-field="status"]').innerText(), 'PENDING');
    assert.ok(log.methods.includes('eth_sendTransaction'));
    await shot(page, 'voucher-declined');

    await page.getByRole('button', { name: 'Cancel this purchase' }).click();
    await heading(page, 'This purchase was cancelled');
    assert.equal(await page.locator('#cancel').isVisible(), false);
    const [intent] = await intentsOf(listing.id);
    assert.equal(intent!.status, 'CANCELLED');
    await shot(page, 'cancelled');
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it('a voucher left unredeemed: the status page shows the purchase expired', async () => {
    const { listing } = await listed(voucherCollection.id, 1, {
      currency: 'ETH',
      price: PRICE.toString(),
      payment_providers: ['MINT_VOUCHER'],
    });
    const buyer = getAddress(t.chain.wallet(9).account.address);
    const log: WalletLog = { methods: [], switchedTo: [], reject: true };
    const { context, page } = await openPage({ account: buyer, log });
    await page.goto(`${base}/checkout/${listing.id}`);
    await page.getByRole('button', { name: 'Connect my wallet and buy' }).click();
    await heading(page, 'Send the transaction');
    const [intent] = await intentsOf(listing.id);
    const voucher = await t.env.database.db
      .selectFrom('mint_vouchers')
      .selectAll()
      .where('holder_id', '=', intent!.id)
      .executeTakeFirstOrThrow();
    // The voucher's end, as its watcher settles it once the chain passes its expiry.
    await t.env.database.db
      .transaction()
      .execute((tx) => t.env.ctx.ports.voucherHolders.PURCHASE_INTENT.ended(tx, t.env.ctx, voucher));
    await heading(page, 'This purchase expired');
    assert.equal(await page.locator('#cancel').isVisible(), false);
    await shot(page, 'expired');
    // Back on the checkout, the tab offers to follow the purchase it made.
    await page.goto(`${base}/checkout/${listing.id}`);
    await page.getByRole('link', { name: 'follow it' }).click();
    await heading(page, 'This purchase expired');
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it('a voucher priced in an ERC-20 token: the page says it cannot pay it here and holds nothing', async () => {
    await t.env.database.db
      .insertInto('payment_tokens')
      .values({ network_id: t.networkId, address: randomAddress(), symbol: 'TUSD', decimals: 6 })
      .execute();
    const { listing } = await listed(voucherCollection.id, 1, {
      currency: 'TUSD',
      price: '2500000',
      payment_providers: ['MINT_VOUCHER'],
    });
    const log: WalletLog = { methods: [], switchedTo: [], reject: false };
    const { context, page } = await openPage({ account: getAddress(t.chain.wallet(9).account.address), log });
    await page.goto(`${base}/checkout/${listing.id}`);
    assert.equal(await page.locator('#price').innerText(), '2.5 TUSD each');
    await page.getByRole('button', { name: 'Connect my wallet and buy' }).click();
    await page
      .locator('#form-error')
      .getByText(
        /^Error: paying in TUSD \(an ERC-20 token\) needs a token approval before minting, which this page does not do\./,
      )
      .waitFor();
    assert.deepEqual(log.methods, [], 'the wallet was not asked anything');
    assert.equal((await intentsOf(listing.id)).length, 0);
    await shot(page, 'erc20-unsupported');
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it('a free sale by email claim: checked in the page, a double click holds once, the claim is mailed', async () => {
    const { listing } = await listed(freeCollection.id, 3, { max_quantity_per_tx: 2 });
    const { context, page } = await openPage();
    await page.goto(`${base}/checkout/${listing.id}`);
    await heading(page, 'Buy from Free Stickers');
    assert.equal(await page.locator('#price').innerText(), 'Free');
    assert.equal(await page.getByLabel('Your wallet address').isVisible(), false);

    // The page's own checks, with the keyboard: the first problem gets the focus.
    const quantity = page.getByLabel('Quantity (1 to 2)');
    await quantity.fill('3');
    await page.getByRole('button', { name: 'Claim by email' }).click();
    await page
      .locator('#quantity-error')
      .getByText('Error: the quantity is a whole number from 1 to 2.')
      .waitFor();
    assert.equal(await focused(page), 'quantity');
    assert.equal(await quantity.getAttribute('aria-invalid'), 'true');
    assert.equal(
      await page.locator('#email-error').innerText(),
      'Error: give the email to send the claim to.',
    );
    await quantity.fill('2');
    await page.getByLabel('Your email').fill('not-an-email');
    await page.keyboard.press('Enter');
    await page
      .locator('#email-error')
      .getByText(/not an email address/)
      .waitFor();
    assert.equal(await focused(page), 'email');
    assert.equal(await quantity.getAttribute('aria-invalid'), null);
    await shot(page, 'invalid');
    assert.equal((await intentsOf(listing.id)).length, 0, 'nothing was sent');

    const email = 'sticker.fan@example.test';
    await page.getByLabel('Your email').fill(email);
    await page.getByRole('button', { name: 'Claim by email' }).dblclick();
    await heading(page, 'Done: your purchase is delivered');
    assert.equal(
      await page.locator('#delivered-text').innerText(),
      'Check your mail: we sent you a link to claim each token.',
    );
    await shot(page, 'email-delivered');
    const intents = await intentsOf(listing.id);
    assert.equal(intents.length, 1, 'a double click holds once');
    assert.equal(intents[0]!.quantity, 2);
    assert.equal(intents[0]!.email, email);
    const mails = await t.until(async () => {
      const response = await t.env.call('GET', `/v1/mailbox?to=${encodeURIComponent(email)}&limit=100`, {
        token: t.env.platformAdmin.token,
      });
      const results = response.json().results as { text: string }[];
      return results.length === 2 ? results : undefined;
    }, 'two claim mails');
    for (const mail of mails)
      assert.match(mail.text, new RegExp(`${base.replace(/[.]/g, '\\.')}/claim\\?token=`));
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it("shows the API's refusals readably: not eligible, not enough left, rate limited, provider down", async () => {
    const vip = await listed(freeCollection.id, 2, {
      max_quantity_per_tx: 3,
      policy: { type: 'ALLOW_LIST', email_addresses: ['vip@example.test'] },
    });
    const { context, page } = await openPage();
    await page.goto(`${base}/checkout/${vip.listing.id}`);
    await page.getByLabel('Your email').fill('someone.else@example.test');
    await page.getByRole('button', { name: 'Claim by email' }).click();
    await page
      .locator('#form-error')
      .getByText(/^Error: you cannot buy from this sale \(.+\)\.$/)
      .waitFor();
    await shot(page, 'not-eligible');

    await page.getByLabel('Your email').fill('vip@example.test');
    await page.getByLabel('Quantity (1 to 3)').fill('3');
    await page.getByRole('button', { name: 'Claim by email' }).click();
    await page
      .locator('#form-error')
      .getByText(/^Error: not enough units are left for this quantity/)
      .waitFor();
    assert.equal((await intentsOf(vip.listing.id)).length, 0);

    // What the service answers under load or when a provider is down, stood in for in the browser.
    const stub = (status: number, code: string, headers: Record<string, string> = {}) =>
      page.route('**/v1/public/purchase-intents', (route) =>
        route.fulfill({
          status,
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ error: { code, detail: 'stood in', request_id: 'r-1' } }),
        }),
      );
    await stub(429, 'RATE_LIMITED', { 'retry-after': '42' });
    await page.getByLabel('Quantity (1 to 3)').fill('1');
    await page.getByRole('button', { name: 'Claim by email' }).click();
    await page
      .locator('#form-error')
      .getByText('Error: too many attempts. Try again in 42 seconds.')
      .waitFor();
    assert.equal(
      await page.locator('#status').innerText(),
      'Error: too many attempts. Try again in 42 seconds.',
    );
    await page.unrouteAll();
    await stub(502, 'UPSTREAM_FAILED');
    await page.getByRole('button', { name: 'Claim by email' }).click();
    await page
      .locator('#form-error')
      .getByText(
        'Error: the payment provider could not be reached. Nothing was charged; try again in a moment.',
      )
      .waitFor();
    await shot(page, 'upstream-failed');
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it('checks a wallet address against its EIP-55 checksum; a card sale loads nothing from Stripe until paid by card', async () => {
    const { listing } = await listed(freeCollection.id, 1, {}, true);
    const { context, page } = await openPage();
    const response = await page.goto(`${base}/checkout/${listing.id}`);
    const csp = response!.headers()['content-security-policy']!;
    assert.match(csp, /script-src 'self' https:\/\/js\.stripe\.com/);
    assert.match(csp, /frame-src https:\/\/js\.stripe\.com/);
    assert.match(csp, /connect-src 'self' https:\/\/api\.stripe\.com/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    await page.getByLabel('Card').check();
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.locator('#email-error').getByText('Error: give your email or your wallet address.').waitFor();
    const owner = getAddress(t.chain.wallet(8).account.address);
    const broken = owner.replace(/[a-f]/, (c) => c.toUpperCase());
    await page.getByLabel('Your wallet address').fill(broken);
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page
      .locator('#address-error')
      .getByText(/^Error: the address does not match its checksum/)
      .waitFor();
    assert.equal(await focused(page), 'address');
    await shot(page, 'bad-checksum');
    assert.equal((await intentsOf(listing.id)).length, 0);
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  /**
   * A card and crypto sale (USD 12.50) through the real API: card sessions are PaymentIntents of
   * the real card provider at the Stripe stand-in, paid through a fake Stripe.js that calls the
   * stand-in's confirm, whose signed event confirms the intent; crypto sessions are payment links
   * of the real crypto provider at the Coinbase stand-in, paid on its hosted page, whose signed
   * event confirms the intent. Either way the token is delivered.
   */
  async function paidSale() {
    const { listing, items } = await listed(freeCollection.id, 1, {
      currency: 'USD',
      price: '1250',
      payment_providers: ['CARD_PROVIDER', 'CRYPTO_PROVIDER'],
    });
    return { listing, item: items[0]! };
  }
  const ownerOf = (tokenId: string) =>
    t.chain.publicClient.readContract({
      address: freeCollection.address,
      abi: ERC721,
      functionName: 'ownerOf',
      args: [BigInt(tokenId)],
    });

  /**
   * What Stripe's API does with Stripe.js's confirm: the stand-in's own endpoint, called as
   * Stripe.js calls it (the platform's publishable key, the connected account, the client secret);
   * its signed event then reaches the service's webhook.
   */
  async function confirmAtStandin(
    id: string,
    form: URLSearchParams,
    stripeJs: { key: string; account: string },
  ) {
    const response = await fetch(`${stripe.url}/v1/payment_intents/${id}/confirm`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stripeJs.key}`,
        'stripe-account': stripeJs.account,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
    });
    await stripe.idle();
    return { status: response.status, body: await response.json() };
  }

  /**
   * Stripe.js stood in for: Stripe(), elements({clientSecret}), a Payment Element offering Stripe's
   * test payment methods, and confirmPayment(), which confirms the PaymentIntent through
   * `confirm` (the test's stand-in for Stripe's API).
   */
  async function fakeStripeJs(
    page: Page,
    confirm: (
      paymentIntent: string,
      form: URLSearchParams,
      stripeJs: { key: string; account: string },
    ) => Promise<{ status: number; body: unknown }>,
  ) {
    await page.route('https://js.stripe.com/v3*', (route) =>
      route.fulfill({
        contentType: 'text/javascript',
        body: `window.Stripe = function (key, options) {
  window.__stripe = { key, account: options && options.stripeAccount };
  return {
    elements({ clientSecret }) {
      window.__stripe.clientSecret = clientSecret;
      return { clientSecret, create(type) { return { mount(target) {
        const root = typeof target === 'string' ? document.querySelector(target) : target;
        const label = document.createElement('label');
        label.htmlFor = 'test-card';
        label.textContent = 'Test card';
        const select = document.createElement('select');
        select.id = 'test-card';
        for (const pm of ['pm_card_visa', 'pm_card_chargeDeclined']) {
          const option = document.createElement('option');
          option.value = pm; option.textContent = pm; select.append(option);
        }
        root.append(label, select);
      } }; } };
    },
    async confirmPayment({ elements, redirect, confirmParams }) {
      window.__stripe.confirmed = { redirect, return_url: confirmParams.return_url };
      const id = elements.clientSecret.split('_secret_')[0];
      const response = await fetch('/__stripe/v1/payment_intents/' + id + '/confirm', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ payment_method: document.getElementById('test-card').value, client_secret: elements.clientSecret }),
      });
      const body = await response.json();
      return body.error ? { error: body.error } : { paymentIntent: body };
    },
  };
};`,
      }),
    );
    await page.route('**/__stripe/v1/payment_intents/*/confirm', async (route) => {
      const id = /payment_intents\/([^/]+)\/confirm/.exec(route.request().url())![1]!;
      const answer = await confirm(id, new URLSearchParams(route.request().postData() ?? ''), {
        key: await page.evaluate('window.__stripe.key'),
        account: await page.evaluate('window.__stripe.account'),
      });
      return route.fulfill({
        status: answer.status,
        contentType: 'application/json',
        body: JSON.stringify(answer.body),
      });
    });
  }

  it('card: Stripe.js loaded only then, a decline keeps the purchase payable, a success is followed until the token is on chain', async () => {
    const stripeLoads: string[] = [];
    const { context, page } = await openPage(undefined, stripeLoads);
    const { listing, item } = await paidSale();
    const confirms: string[] = [];
    await fakeStripeJs(page, async (id, form, stripeJs) => {
      confirms.push(`${form.get('payment_method')}`);
      return confirmAtStandin(id, form, stripeJs);
    });
    await page.goto(`${base}/checkout/${listing.id}`);
    assert.equal(await page.locator('#price').innerText(), '$12.50 each');
    const buyer = getAddress(t.chain.wallet(4).account.address);
    await page.getByLabel('Card').check();
    await page.getByLabel('Your wallet address').fill(buyer.toLowerCase());
    assert.deepEqual(stripeLoads, [], 'Stripe.js is not loaded before paying by card');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await heading(page, 'Pay by card');
    const [intent] = await intentsOf(listing.id);
    assert.equal(intent!.payment_provider, 'CARD_PROVIDER');
    assert.equal(getAddress(intent!.eth_address!), buyer);
    assert.deepEqual(stripeLoads, ['https://js.stripe.com/v3']);
    const paymentIntent = stripe.paymentIntents.get(intent!.card_provider_payment_intent_id!)!;
    assert.equal(paymentIntent.amount, 1250);
    assert.deepEqual(await page.evaluate('({ ...window.__stripe })'), {
      key: PLATFORM_KEYS.publishableKey,
      account: connectedAccount,
      clientSecret: paymentIntent.client_secret,
    });
    assert.equal(await page.locator('[data-field="amount"]').first().innerText(), '$12.50');
    await shot(page, 'card-form');

    await page.getByLabel('Test card').selectOption('pm_card_chargeDeclined');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page
      .locator('#card-error')
      .getByText('Error: Your card was declined. You can try again.')
      .waitFor();
    assert.equal((await intentsOf(listing.id))[0]!.status, 'PENDING');
    assert.equal(await page.locator('#cancel').isVisible(), true);
    await shot(page, 'card-declined');

    await page.getByLabel('Test card').selectOption('pm_card_visa');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await heading(page, 'Done: your purchase is delivered');
    assert.deepEqual(await page.evaluate('window.__stripe.confirmed'), {
      redirect: 'if_required',
      return_url: `${base}/checkout/${listing.id}/status?intent=${intent!.id}`,
    });
    assert.equal(await page.locator('#delivered-text').innerText(), 'The tokens were sent to your wallet.');
    assert.deepEqual(confirms, ['pm_card_chargeDeclined', 'pm_card_visa']);
    assert.equal(await ownerOf(item.token_id!), buyer);
    await shot(page, 'card-delivered');
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it('card: a purchase that expires while the buyer pays shows EXPIRED; another is cancelled from the page', async () => {
    const stripeLoads: string[] = [];
    const { context, page } = await openPage(undefined, stripeLoads);
    const { listing } = await paidSale();
    await fakeStripeJs(page, async () => ({ status: 500, body: {} }));
    await page.goto(`${base}/checkout/${listing.id}`);
    await page.getByLabel('Card').check();
    await page.getByLabel('Your email').fill('late.payer@example.test');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await heading(page, 'Pay by card');
    const [intent] = await intentsOf(listing.id);
    await t.env.database.db
      .updateTable('purchase_intents')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', intent!.id)
      .execute();
    // The session is cancelled at the stand-in, whose payment_intent.canceled event may expire the
    // intent before the expiry itself does: either way it ends EXPIRED.
    await expireIntentWithProvider(t.env.database.db, t.env.ctx, intent!.id);
    assert.equal((await intentsOf(listing.id))[0]!.status, 'EXPIRED');
    await heading(page, 'This purchase expired');
    assert.equal(await page.locator('#cancel').isVisible(), false);
    await shot(page, 'card-expired');

    await page.goto(`${base}/checkout/${listing.id}`);
    await page.getByLabel('Card').check();
    await page.getByLabel('Your email').fill('late.payer@example.test');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await heading(page, 'Pay by card');
    await page.getByRole('button', { name: 'Cancel this purchase' }).click();
    await heading(page, 'This purchase was cancelled');
    const statuses = (await intentsOf(listing.id)).map((i) => i.status).sort();
    assert.deepEqual(statuses, ['CANCELLED', 'EXPIRED']);
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it('crypto: sent to the payment link, paid there, back to the status view, the claim mailed', async () => {
    const linkPages: string[] = [];
    const { context, page } = await openPage(undefined, undefined, linkPages);
    const { listing } = await paidSale();
    await page.goto(`${base}/checkout/${listing.id}`);
    await page.getByLabel('Crypto (USDC, through a payment link)').check();
    const email = 'crypto.buyer@example.test';
    await page.getByLabel('Your email').fill(email);
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    // The payment link's hosted page (the Coinbase stand-in's), for the listing's price in USDC.
    await page.getByRole('heading', { name: /^Pay 12\.50 USDC/ }).waitFor();
    const [intent] = await intentsOf(listing.id);
    assert.equal(intent!.payment_provider, 'CRYPTO_PROVIDER');
    assert.equal(page.url(), `${coinbase.url}/pay/${intent!.crypto_provider_charge_id}`);
    // Paying there sends the signed payment_link.payment.success event to the service.
    await page.getByRole('button', { name: 'Pay' }).click();
    await page
      .locator('#result')
      .getByText(/^Paid; the merchant answered 200\./)
      .waitFor();
    assert.ok(linkPages.length > 0);
    // Back at the shop: the checkout offers this tab's purchase, followed to delivery.
    await page.goto(`${base}/checkout/${listing.id}`);
    await page.getByRole('link', { name: 'follow it' }).click();
    await heading(page, 'Done: your purchase is delivered');
    assert.equal(page.url(), `${base}/checkout/${listing.id}/status?intent=${intent!.id}`);
    assert.equal(
      await page.locator('#delivered-text').innerText(),
      'Check your mail: we sent you a link to claim each token.',
    );
    await shot(page, 'crypto-delivered');
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });

  it('says when a sale is unknown, not started, ended, cancelled or sold out; an invalid id is a 404 page', async () => {
    const { context, page } = await openPage();
    const invalid = await page.goto(`${base}/checkout/not-a-listing`);
    assert.equal(invalid!.status(), 404);
    await heading(page, 'Page not found');
    const unknown = await page.goto(`${base}/checkout/0190a000-0000-7000-8000-000000000000`);
    assert.equal(unknown!.status(), 404);
    await heading(page, 'This sale does not exist');
    await shot(page, 'unknown');

    const later = await listed(freeCollection.id, 1, {
      start_time: new Date(Date.now() + 86_400_000).toISOString(),
    });
    await page.goto(`${base}/checkout/${later.listing.id}`);
    await heading(page, 'This sale has not started yet');
    assert.match(await page.locator('#window').innerText(), /^On sale from \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    assert.equal(await page.locator('#checkout-form').count(), 0);

    const ended = await listed(freeCollection.id, 1, {});
    await t.env.database.db
      .updateTable('listings')
      .set({ end_time: new Date(Date.now() - 1000) })
      .where('id', '=', ended.listing.id)
      .execute();
    await page.goto(`${base}/checkout/${ended.listing.id}`);
    await heading(page, 'This sale has ended');
    await shot(page, 'ended');

    const cancelled = await listed(freeCollection.id, 1, {});
    const cancel = await t.env.call('POST', `/v1/listings/${cancelled.listing.id}/cancel`, {
      token: t.admin.token,
      body: {},
    });
    assert.equal(cancel.statusCode, 200, cancel.body);
    await page.goto(`${base}/checkout/${cancelled.listing.id}`);
    await heading(page, 'This sale was cancelled');

    const sold = await listed(freeCollection.id, 1, {});
    const bought = await t.env.call('POST', '/v1/public/purchase-intents', {
      body: {
        listing_id: sold.listing.id,
        quantity: 1,
        provider: 'EMAIL_CLAIM',
        buyer: { email: 'a@example.test' },
      },
    });
    assert.equal(bought.statusCode, 201, bought.body);
    await page.goto(`${base}/checkout/${sold.listing.id}`);
    await heading(page, 'Sold out');
    assert.equal(await page.locator('#remaining').innerText(), '0 of 1');

    // A status link opened in another tab (no client token there) explains itself.
    await page.goto(`${base}/checkout/${sold.listing.id}/status?intent=${bought.json().id}`);
    await heading(page, 'We cannot show this purchase here');
    await shot(page, 'status-unknown');
    await context.close();
    assert.deepEqual(foreign, [], 'the page made requests to other origins');
  });
});
