import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { setupTest, type TestEnv } from '../harness.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { type CoinbaseStandin, newCdpKey, startCoinbaseStandin } from '../support/coinbase-standin.ts';

/**
 * The stand-in's hosted payment page, as a checkout page's browser test uses it: the buyer opens
 * the link's `url`, presses Pay, and the signed payment_link.payment.success event reaches the
 * organization's webhook.
 */
describe("the crypto provider stand-in's payment page in a browser", { skip: browserUnavailable() }, () => {
  let env: TestEnv;
  let standin: CoinbaseStandin;
  let browser: Browser;
  before(async () => {
    standin = await startCoinbaseStandin();
    env = await setupTest({ COINBASE_BUSINESS_API_BASE: standin.url });
    standin.transport = async (delivery) => {
      const response = await env.app.inject({
        method: 'POST',
        url: new URL(delivery.url).pathname,
        headers: delivery.headers,
        payload: delivery.body,
      });
      return { status: response.statusCode, body: response.body };
    };
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await env?.close();
    await standin?.close();
  });

  it('pays the link on its page: COMPLETED at the provider, the signed event received once', async () => {
    const tenant = await env.createTenant();
    const key = newCdpKey();
    standin.registerKey(key);
    const put = await env.call('PUT', '/v1/crypto-provider', {
      token: tenant.admin.token,
      body: { api_key_id: key.apiKeyId, api_key_secret: key.privateKeyPem, webhook_secret: 'page-secret' },
    });
    assert.equal(put.statusCode, 200, put.body);
    standin.subscribe(key.apiKeyId, { url: put.json().webhook_url, secret: 'page-secret' });
    const link = await env.ctx.cryptoPayments.createPaymentLink(
      { apiKeyId: key.apiKeyId, apiKeySecret: key.privateKeyPem },
      {
        amount: '7.25',
        network: 'base',
        description: 'Genesis #1',
        expiresAt: new Date(Date.now() + 15 * 60_000),
        metadata: { purchase_intent_id: crypto.randomUUID() },
        idempotencyKey: crypto.randomUUID(),
      },
    );
    const page = await browser.newPage();
    try {
      await page.goto(link.url);
      assert.equal(await page.textContent('#amount'), '7.25');
      assert.equal(await page.textContent('#description'), 'Genesis #1');
      await page.click('#pay');
      await page.waitForSelector('#result');
      assert.match((await page.textContent('#result')) ?? '', /answered 200/);
      assert.equal(await page.textContent('#status'), 'COMPLETED');
      assert.equal(await page.isDisabled('#pay'), true);
    } finally {
      await page.close();
    }
    const events = await env.database.db
      .selectFrom('provider_events')
      .select(['event_type', 'processed_at'])
      .where('account', '=', tenant.organizationId)
      .execute();
    assert.deepEqual(
      events.map((e) => [e.event_type, e.processed_at !== null]),
      [['payment_link.payment.success', true]],
    );
  });
});
