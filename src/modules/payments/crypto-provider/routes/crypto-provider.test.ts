import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { assertError, assertFields } from '../../../../../test/assertions.ts';
import { setupTest, type Tenant, type TestEnv } from '../../../../../test/harness.ts';
import {
  type CdpKey,
  type CoinbaseStandin,
  type Delivery,
  newCdpKey,
  type StandinLink,
  startCoinbaseStandin,
} from '../../../../../test/support/coinbase-standin.ts';
import { createLogger } from '../../../../lib/logger.ts';
import { cdpJwt } from '../../../../providers/crypto/coinbase.ts';
import { CryptoProviderError } from '../../../../providers/crypto/crypto-payments.ts';

const WEBHOOK_SECRET = 'whsec-crypto-0123456789abcdef';

describe('crypto provider', () => {
  let env: TestEnv;
  let standin: CoinbaseStandin;
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
  });
  after(async () => {
    await env?.close();
    await standin?.close();
  });

  const put = (tenant: Tenant, body: object, token = tenant.admin.token) =>
    env.call('PUT', '/v1/crypto-provider', { token, body });
  const settings = (key: CdpKey, overrides: Record<string, unknown> = {}) => ({
    api_key_id: key.apiKeyId,
    api_key_secret: key.privateKeyPem,
    webhook_secret: WEBHOOK_SECRET,
    ...overrides,
  });
  const webhookUrl = (organizationId: string) =>
    `http://tokens.test/v1/webhooks/crypto-provider/${organizationId}`;

  /** A tenant with its crypto provider set, its key known to the stand-in and its subscription made. */
  async function configured(secret = WEBHOOK_SECRET): Promise<{ tenant: Tenant; key: CdpKey }> {
    const tenant = await env.createTenant();
    const key = newCdpKey();
    standin.registerKey(key);
    standin.subscribe(key.apiKeyId, { url: webhookUrl(tenant.organizationId), secret });
    const response = await put(tenant, settings(key, { webhook_secret: secret }));
    assert.equal(response.statusCode, 200, response.body);
    return { tenant, key };
  }

  const credentials = (key: CdpKey) => ({ apiKeyId: key.apiKeyId, apiKeySecret: key.privateKeyPem });
  const openLink = (key: CdpKey, idempotencyKey = crypto.randomUUID()) =>
    env.ctx.cryptoPayments.createPaymentLink(credentials(key), {
      amount: '12.50',
      network: 'base',
      description: 'Test link',
      expiresAt: new Date(Date.now() + 15 * 60_000),
      metadata: { purchase_intent_id: crypto.randomUUID() },
      idempotencyKey,
    });

  describe('set-up (PUT, GET, DELETE /v1/crypto-provider)', () => {
    it('answers configured false and the webhook URL before any set-up', async () => {
      const tenant = await env.createTenant();
      const response = await env.call('GET', '/v1/crypto-provider', { token: tenant.admin.token });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        configured: false,
        network: null,
        webhook_url: webhookUrl(tenant.organizationId),
      });
    });

    it('stores the key and webhook secret encrypted, never answers them, and defaults network to base', async () => {
      const tenant = await env.createTenant();
      const key = newCdpKey();
      const response = await put(tenant, settings(key));
      assert.equal(response.statusCode, 200, response.body);
      const expected = { configured: true, network: 'base', webhook_url: webhookUrl(tenant.organizationId) };
      assert.deepEqual(response.json(), expected);
      const read = await env.call('GET', '/v1/crypto-provider', { token: tenant.admin.token });
      assert.deepEqual(read.json(), expected);
      for (const body of [response.body, read.body]) {
        assert.ok(!body.includes(WEBHOOK_SECRET) && !body.includes('PRIVATE KEY'), body);
        assert.ok(!body.includes(key.apiKeyId), body);
      }
      const row = await env.database.db
        .selectFrom('crypto_provider_configs')
        .selectAll()
        .where('organization_id', '=', tenant.organizationId)
        .executeTakeFirstOrThrow();
      assert.equal(row.api_key_id, key.apiKeyId);
      assert.ok(!row.api_key_secret_encrypted.includes('PRIVATE KEY'));
      assert.ok(!row.webhook_secret_encrypted.includes(WEBHOOK_SECRET));
      assert.equal(env.ctx.keyring.decrypt(row.webhook_secret_encrypted), WEBHOOK_SECRET);
      assert.match(env.ctx.keyring.decrypt(row.api_key_secret_encrypted), /^-----BEGIN PRIVATE KEY-----/);
    });

    it('keeps one set-up per organization: a second PUT replaces the first', async () => {
      const tenant = await env.createTenant();
      assert.equal((await put(tenant, settings(newCdpKey()))).statusCode, 200);
      const second = newCdpKey();
      const response = await put(tenant, settings(second, { network: 'polygon' }));
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().network, 'polygon');
      const rows = await env.database.db
        .selectFrom('crypto_provider_configs')
        .selectAll()
        .where('organization_id', '=', tenant.organizationId)
        .execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.api_key_id, second.apiKeyId);
    });

    it('accepts the SEC1 PEM CDP shows (BEGIN EC PRIVATE KEY) and stores it as PKCS#8', async () => {
      const tenant = await env.createTenant();
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const sec1 = privateKey.export({ format: 'pem', type: 'sec1' }).toString();
      const response = await put(tenant, settings(newCdpKey(), { api_key_secret: sec1 }));
      assert.equal(response.statusCode, 200, response.body);
    });

    it('refuses an api_key_secret that is no EC P-256 private key, naming the field', async () => {
      const tenant = await env.createTenant();
      const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString();
      const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString();
      const publicOnly = newCdpKey().publicKey.export({ format: 'pem', type: 'spki' }).toString();
      for (const secret of [
        'not a key',
        rsa,
        p384,
        publicOnly,
        '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
      ]) {
        assertFields(await put(tenant, settings(newCdpKey(), { api_key_secret: secret })), [
          '/api_key_secret',
        ]);
      }
      const read = await env.call('GET', '/v1/crypto-provider', { token: tenant.admin.token });
      assert.equal(read.json().configured, false);
    });

    it('validates every field: required, non-empty, network among the payment-link networks, nothing unknown', async () => {
      const tenant = await env.createTenant();
      const key = newCdpKey();
      const { api_key_id: _id, ...noId } = settings(key);
      const { api_key_secret: _secret, ...noSecret } = settings(key);
      const { webhook_secret: _webhook, ...noWebhook } = settings(key);
      assertFields(await put(tenant, noId), ['/api_key_id']);
      assertFields(await put(tenant, noSecret), ['/api_key_secret']);
      assertFields(await put(tenant, noWebhook), ['/webhook_secret']);
      assertFields(await put(tenant, settings(key, { api_key_id: '' })), ['/api_key_id']);
      assertFields(await put(tenant, settings(key, { webhook_secret: '' })), ['/webhook_secret']);
      for (const network of ['bitcoin', 'BASE', '']) {
        const error = assertError(await put(tenant, settings(key, { network })), 400, 'VALIDATION_FAILED');
        assert.deepEqual([...new Set(error.fields?.map((f) => f.path))], ['/network']);
      }
      assertError(await put(tenant, settings(key, { api_secret: 'x' })), 400, 'VALIDATION_FAILED');
    });

    it('is for the organization admins: a member is 403, no credentials 401', async () => {
      const tenant = await env.createTenant();
      const body = settings(newCdpKey());
      assertError(await put(tenant, body, tenant.member.token), 403, 'FORBIDDEN');
      assertError(
        await env.call('GET', '/v1/crypto-provider', { token: tenant.member.token }),
        403,
        'FORBIDDEN',
      );
      assertError(
        await env.call('DELETE', '/v1/crypto-provider', { token: tenant.member.token }),
        403,
        'FORBIDDEN',
      );
      assertError(await env.call('PUT', '/v1/crypto-provider', { body }), 401, 'UNAUTHENTICATED');
      assertError(await env.call('GET', '/v1/crypto-provider'), 401, 'UNAUTHENTICATED');
    });

    it("sets only the caller's organization: another organization's admin sees its own", async () => {
      const tenant = await env.createTenant();
      assert.equal((await put(tenant, settings(newCdpKey()))).statusCode, 200);
      const theirs = await env.call('GET', '/v1/crypto-provider', { token: tenant.stranger.token });
      assert.equal(theirs.json().configured, false);
      assert.notEqual(theirs.json().webhook_url, webhookUrl(tenant.organizationId));
    });

    it('deletes the set-up (204, again 204): configured false afterwards', async () => {
      const tenant = await env.createTenant();
      assert.equal((await put(tenant, settings(newCdpKey()))).statusCode, 200);
      const deleted = await env.call('DELETE', '/v1/crypto-provider', { token: tenant.admin.token });
      assert.equal(deleted.statusCode, 204, deleted.body);
      const read = await env.call('GET', '/v1/crypto-provider', { token: tenant.admin.token });
      assert.equal(read.json().configured, false);
      assert.equal(
        (await env.call('DELETE', '/v1/crypto-provider', { token: tenant.admin.token })).statusCode,
        204,
      );
    });

    it('redacts the key and webhook secret from logs', () => {
      const lines: string[] = [];
      const logger = createLogger(
        'info',
        new Writable({
          write(chunk, _encoding, callback) {
            lines.push(String(chunk));
            callback();
          },
        }),
      );
      const key = newCdpKey();
      logger.info({ body: settings(key) }, 'request');
      const text = lines.join('');
      assert.ok(!text.includes(WEBHOOK_SECRET) && !text.includes('PRIVATE KEY'), text);
      assert.ok(text.includes(key.apiKeyId), 'the key id is no secret');
    });
  });

  describe('CDP API key JWT', () => {
    it('signs ES256 with kid, typ and a fresh nonce; iss cdp, sub the key id, 120 s, uris of the request', async () => {
      const key = newCdpKey();
      const first = await cdpJwt(credentials(key), 'POST', 'business.coinbase.com', '/api/v1/payment-links');
      const second = await cdpJwt(credentials(key), 'POST', 'business.coinbase.com', '/api/v1/payment-links');
      const header = decodeProtectedHeader(first);
      assert.equal(header.alg, 'ES256');
      assert.equal(header.kid, key.apiKeyId);
      assert.equal(header.typ, 'JWT');
      assert.match(String(header.nonce), /^[0-9a-f]{32}$/);
      assert.notEqual(header.nonce, decodeProtectedHeader(second).nonce);
      const claims = decodeJwt(first);
      assert.equal(claims.iss, 'cdp');
      assert.equal(claims.sub, key.apiKeyId);
      assert.equal((claims.exp as number) - (claims.nbf as number), 120);
      assert.deepEqual(claims.uris, ['POST business.coinbase.com/api/v1/payment-links']);
    });

    it('is accepted by the stand-in for create, retrieve and deactivate, with the idempotency key', async () => {
      const key = newCdpKey();
      standin.registerKey(key);
      const idempotencyKey = crypto.randomUUID();
      const link = await openLink(key, idempotencyKey);
      const again = await openLink(key, idempotencyKey);
      assert.equal(again.id, link.id, 'the same idempotency key answers the same link');
      assert.equal(
        (await env.ctx.cryptoPayments.retrievePaymentLink(credentials(key), link.id)).status,
        'ACTIVE',
      );
      const ended = await env.ctx.cryptoPayments.deactivatePaymentLink(credentials(key), link.id);
      assert.equal(ended.status, 'DEACTIVATED');
      const mine = standin.requests.filter((r) => r.idempotencyKey === idempotencyKey);
      assert.equal(mine.length, 2);
      assert.ok(mine.every((r) => r.refused === undefined));
    });

    it('is refused when signed with another key than the registered one (502 with the provider message)', async () => {
      const key = newCdpKey();
      standin.registerKey(key);
      const impostor = { apiKeyId: key.apiKeyId, apiKeySecret: newCdpKey().privateKeyPem };
      await assert.rejects(
        env.ctx.cryptoPayments.retrievePaymentLink(impostor, 'a'.repeat(24)),
        (error: unknown) =>
          error instanceof CryptoProviderError &&
          error.status === 502 &&
          error.code === 'UPSTREAM_FAILED' &&
          error.providerStatus === 401 &&
          /Unauthorized/.test(error.detail),
      );
      assert.match(standin.requests.at(-1)?.refused ?? '', /signature/);
    });

    it('is refused when expired or naming another request (stand-in checks)', async () => {
      const key = newCdpKey();
      standin.registerKey(key);
      const host = new URL(standin.url).host;
      const path = `/api/v1/payment-links/${'b'.repeat(24)}`;
      const now = Math.floor(Date.now() / 1000);
      const expired = await new SignJWT({ uris: [`GET ${host}${path}`] })
        .setProtectedHeader({ alg: 'ES256', kid: key.apiKeyId, typ: 'JWT', nonce: 'ab'.repeat(16) })
        .setIssuer('cdp')
        .setSubject(key.apiKeyId)
        .setNotBefore(now - 600)
        .setExpirationTime(now - 480)
        .sign(createPrivateKey(key.privateKeyPem));
      const wrongUris = await cdpJwt(credentials(key), 'POST', host, path);
      const otherHost = await cdpJwt(credentials(key), 'GET', 'business.coinbase.com', path);
      const valid = await cdpJwt(credentials(key), 'GET', host, path);
      const statusWith = async (token: string) =>
        (await fetch(`${standin.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).status;
      assert.equal(await statusWith(expired), 401);
      assert.match(standin.requests.at(-1)?.refused ?? '', /exp/);
      assert.equal(await statusWith(wrongUris), 401);
      assert.match(standin.requests.at(-1)?.refused ?? '', /uris/);
      assert.equal(await statusWith(otherHost), 401);
      assert.equal(await statusWith(valid), 404, 'a valid token reaches the API (no such link)');
    });

    it('maps provider errors and outages to UPSTREAM_FAILED', async () => {
      const key = newCdpKey();
      standin.registerKey(key);
      standin.failures.push({ status: 503, message: 'maintenance' });
      await assert.rejects(openLink(key), (error: unknown) => {
        return (
          error instanceof CryptoProviderError && error.providerStatus === 503 && /failed/.test(error.detail)
        );
      });
      standin.failures.push({ status: 400, message: 'Invalid network for this account' });
      await assert.rejects(openLink(key), (error: unknown) => {
        return error instanceof CryptoProviderError && /Invalid network for this account/.test(error.detail);
      });
      standin.down = true;
      try {
        await assert.rejects(openLink(key), (error: unknown) => {
          return error instanceof CryptoProviderError && error.providerStatus === undefined;
        });
      } finally {
        standin.down = false;
      }
    });
  });

  describe('webhook signature (X-Hook0-Signature)', () => {
    const events = (organizationId: string) =>
      env.database.db
        .selectFrom('provider_events')
        .selectAll()
        .where('provider', '=', 'crypto-provider')
        .where('account', '=', organizationId)
        .execute();
    const linkOf = async (key: CdpKey): Promise<StandinLink> => {
      const link = await openLink(key);
      return standin.links.get(link.id) as StandinLink;
    };
    const send = (delivery: Delivery) => standin.send(delivery);

    it('records a signed delivery once: a replay answers 200 and is not processed again', async () => {
      const { tenant, key } = await configured();
      const delivery = standin.delivery(await linkOf(key), 'payment_link.payment.failed');
      const first = await send(delivery);
      assert.equal(first.status, 200, first.body);
      assert.deepEqual(JSON.parse(first.body), { received: true, duplicate: false });
      const replay = await send(delivery);
      assert.equal(replay.status, 200, replay.body);
      assert.equal(JSON.parse(replay.body).duplicate, true);
      const rows = await events(tenant.organizationId);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.event_id, delivery.headers['x-hook0-id']);
      assert.equal(rows[0]?.payload, delivery.body);
      assert.ok(rows[0]?.processed_at, 'processed');
      assert.equal(rows[0]?.attempts, 1);
    });

    it('acknowledges an event type it does not handle (200, processed, nothing else)', async () => {
      const { tenant, key } = await configured();
      const answer = await send(standin.delivery(await linkOf(key), 'payment_link.created'));
      assert.equal(answer.status, 200, answer.body);
      const rows = await events(tenant.organizationId);
      assert.deepEqual(
        rows.map((r) => [r.event_type, r.processed_at !== null, r.last_error]),
        [['payment_link.created', true, null]],
      );
    });

    it('keys a delivery without x-hook0-id by the link id and event type', async () => {
      const { tenant, key } = await configured();
      const link = await linkOf(key);
      const { 'x-hook0-id': _id, ...headers } = standin.delivery(
        link,
        'payment_link.payment.expired',
      ).headers;
      const delivery = { ...standin.delivery(link, 'payment_link.payment.expired'), headers };
      assert.equal((await send(delivery)).status, 200);
      const rows = await events(tenant.organizationId);
      assert.deepEqual(
        rows.map((r) => r.event_id),
        [`${link.id}:payment_link.payment.expired`],
      );
    });

    it('refuses (400, nothing stored) a missing, malformed, wrong-secret, stale or re-serialised delivery', async () => {
      const { tenant, key } = await configured();
      const link = await linkOf(key);
      const good = standin.delivery(link, 'payment_link.payment.success');
      const { 'x-hook0-signature': _signature, ...unsigned } = good.headers;
      const resigned = (secret: string) => {
        standin.subscribe(key.apiKeyId, { url: webhookUrl(tenant.organizationId), secret });
        try {
          return standin.delivery(link, 'payment_link.payment.success');
        } finally {
          standin.subscribe(key.apiKeyId, { url: webhookUrl(tenant.organizationId), secret: WEBHOOK_SECRET });
        }
      };
      const stale = standin.delivery(link, 'payment_link.payment.success', {
        timestamp: Math.floor(Date.now() / 1000) - 6 * 60,
      });
      const reserialised = { ...good, body: JSON.stringify(JSON.parse(good.body), null, 2) };
      const headerChanged = {
        ...good,
        headers: { ...good.headers, 'x-event-type': 'payment_link.payment.failed' },
      };
      const malformed = { ...good, headers: { ...good.headers, 'x-hook0-signature': 'v1=abc' } };
      const cases: [string, Delivery][] = [
        ['missing', { ...good, headers: unsigned }],
        ['malformed', malformed],
        ['wrong secret', resigned('another-secret')],
        ['stale', stale],
        ['re-serialised body', reserialised],
        ['signed header changed', headerChanged],
      ];
      for (const [what, delivery] of cases) {
        const answer = await send(delivery);
        assert.equal(answer.status, 400, `${what}: ${answer.body}`);
        assert.equal(JSON.parse(answer.body).error.code, 'VALIDATION_FAILED', what);
      }
      assert.equal((await events(tenant.organizationId)).length, 0);
      assert.equal(standin.links.get(link.id)?.status, 'ACTIVE');
    });

    it("refuses a delivery to another organization's URL and to an organization without set-up", async () => {
      const { key } = await configured();
      const other = await configured('the-other-organization-secret');
      const bare = await env.createTenant();
      const delivery = standin.delivery(await linkOf(key), 'payment_link.payment.success');
      for (const organizationId of [other.tenant.organizationId, bare.organizationId]) {
        const answer = await send({ ...delivery, url: webhookUrl(organizationId) });
        assert.equal(answer.status, 400, answer.body);
        assert.equal((await events(organizationId)).length, 0);
      }
      const notUuid = await send({ ...delivery, url: 'http://tokens.test/v1/webhooks/crypto-provider/nope' });
      assert.equal(notUuid.status, 400, notUuid.body);
    });
  });
});
