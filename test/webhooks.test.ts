import assert from 'node:assert/strict';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import type { LightMyRequestResponse } from 'fastify';
import { PROVIDER_SIGNED, PUBLIC } from '../src/access/access.ts';
import { buildApp } from '../src/app.ts';
import { apiScope } from '../src/http/api-scope.ts';
import { registeredRoutes } from '../src/http/route-table.ts';
import type { App, RouteModule } from '../src/http/types.ts';
import {
  rawBodyOf,
  WEBHOOK_BODY_LIMIT_BYTES,
  WEBHOOKS_PREFIX,
  webhooksScope,
} from '../src/http/webhooks-scope.ts';
import { ApiError, ErrorBody } from '../src/lib/errors.ts';
import { recordProviderEvent } from '../src/modules/platform/provider-events/provider-events.service.ts';
import { setupTest, type TestEnv } from './harness.ts';

/**
 * The webhooks scope, exercised by routes registered the way a payments module will register
 * its own: a RouteModule handed to webhooksScope. The stand-in provider signs like Stripe does:
 * an HMAC-SHA256 of the exact bytes, in a header.
 */
const SECRET = 'whsec_test';
const sign = (body: string | Buffer) => createHmac('sha256', SECRET).update(body).digest('hex');

/** Answers what it received: the bytes (base64), their digest and content type. */
const echoRoute: RouteModule = (app) =>
  app.post('/test-provider/echo', { config: { access: PROVIDER_SIGNED } }, async (request) => {
    const raw = rawBodyOf(request);
    return {
      base64: raw.toString('base64'),
      sha256: createHash('sha256').update(raw).digest('hex'),
      content_type: request.headers['content-type'] ?? null,
    };
  });

/** Verify on the raw body → record in the inbox → a duplicate answers at once. */
const eventRoute: RouteModule = (app, ctx) =>
  app.post('/test-provider/events', { config: { access: PROVIDER_SIGNED } }, async (request) => {
    const raw = rawBodyOf(request);
    const given = Buffer.from(String(request.headers['x-test-signature'] ?? ''), 'hex');
    const expected = Buffer.from(sign(raw), 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new ApiError('VALIDATION_FAILED', 'the signature does not match the body');
    const event = JSON.parse(raw.toString('utf8')) as { id: string; type: string; account?: string };
    return ctx.db.transaction().execute(async (tx) => {
      const recorded = await recordProviderEvent(tx, {
        provider: 'test-provider',
        eventId: event.id,
        eventType: event.type,
        account: event.account ?? null,
        payload: raw.toString('utf8'),
      });
      return { received: true, duplicate: recorded.duplicate, id: recorded.id };
    });
  });

const failingRoute: RouteModule = (app) =>
  app.post('/test-provider/fails', { config: { access: PROVIDER_SIGNED } }, async () => {
    throw new Error('secret detail of the cause');
  });

function assertErrorBody(response: LightMyRequestResponse, status: number, code: string) {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = response.json();
  assert.ok(Value.Check(ErrorBody, body), response.body);
  assert.equal(body.error.code, code, response.body);
  assert.equal(body.error.request_id, response.headers['x-request-id']);
  return body.error as ErrorBody['error'];
}

describe('the webhooks scope', () => {
  let env: TestEnv;
  let app: App;
  const post = (path: string, payload: string | Buffer, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: `${WEBHOOKS_PREFIX}${path}`, payload, headers });

  before(async () => {
    env = await setupTest();
    app = await buildApp(env.ctx);
    await app.register(webhooksScope(env.ctx, [echoRoute, eventRoute, failingRoute]), {
      prefix: WEBHOOKS_PREFIX,
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await env.close();
  });

  it('hands the handler the body byte for byte: JSON with odd spacing and key order', async () => {
    const body = '{ "type":"charge.succeeded",\n\t"id" :  "evt_1",  "amount":1.50, "a":{"z":1,"b":[ ]} }\r\n';
    const response = await post('/test-provider/echo', body, { 'content-type': 'application/json' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(Buffer.from(response.json().base64, 'base64').toString('utf8'), body);
  });

  it('takes any content type, or none, as raw bytes', async () => {
    const binary = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x0a, 0x7b]);
    for (const [contentType, payload] of [
      ['application/x-www-form-urlencoded', 'a=1&b=%20two'],
      ['text/plain; charset=utf-8', '{"id": "evt_text"}'],
      ['application/octet-stream', binary],
      ['application/vnd.provider+json', '{"id":"evt_vendor"}'],
      [undefined, 'no content type at all'],
    ] as const) {
      const response = await post(
        '/test-provider/echo',
        payload,
        contentType ? { 'content-type': contentType } : {},
      );
      assert.equal(response.statusCode, 200, `${contentType}: ${response.body}`);
      const expected = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
      assert.ok(Buffer.from(response.json().base64, 'base64').equals(expected), String(contentType));
      assert.equal(response.json().sha256, createHash('sha256').update(expected).digest('hex'));
    }
  });

  it('gives an empty body as an empty Buffer', async () => {
    const response = await post('/test-provider/echo', '');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().base64, '');
  });

  it('verifies a signature made over the exact bytes, which a re-serialised body would not match', async () => {
    const body = '{"type": "payment.created",   "id": "evt_sig"}';
    assert.notEqual(JSON.stringify(JSON.parse(body)), body);
    const ok = await post('/test-provider/events', body, {
      'content-type': 'application/json',
      'x-test-signature': sign(body),
    });
    assert.equal(ok.statusCode, 200, ok.body);
    const forged = await post('/test-provider/events', body, {
      'content-type': 'application/json',
      'x-test-signature': sign(JSON.stringify(JSON.parse(body))),
    });
    assertErrorBody(forged, 400, 'VALIDATION_FAILED');
  });

  it('records an event once and reports its re-delivery as a duplicate', async () => {
    const body = '{"id":"evt_redelivered","type":"checkout.session.completed","account":"acct_1"}';
    const headers = { 'content-type': 'application/json', 'x-test-signature': sign(body) };
    const first = await post('/test-provider/events', body, headers);
    const again = await post('/test-provider/events', body, headers);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(first.json().duplicate, false);
    assert.equal(again.json().duplicate, true);
    assert.equal(again.json().id, first.json().id);
    const rows = await env.database.db
      .selectFrom('provider_events')
      .selectAll()
      .where('event_id', '=', 'evt_redelivered')
      .execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.payload, body);
    assert.equal(rows[0]!.account, 'acct_1');
    assert.equal(rows[0]!.event_type, 'checkout.session.completed');
  });

  it(`refuses a body over ${WEBHOOK_BODY_LIMIT_BYTES} bytes with the error body`, async () => {
    const response = await post('/test-provider/echo', 'x'.repeat(WEBHOOK_BODY_LIMIT_BYTES + 1), {
      'content-type': 'application/json',
    });
    const error = assertErrorBody(response, 400, 'VALIDATION_FAILED');
    assert.match(error.detail, new RegExp(`larger than ${WEBHOOK_BODY_LIMIT_BYTES} bytes`));
  });

  it('answers a failing handler with the JSON 500 body, without the cause', async () => {
    const response = await post('/test-provider/fails', '{}', { 'content-type': 'application/json' });
    assertErrorBody(response, 500, 'INTERNAL');
    assert.doesNotMatch(response.body, /secret/);
  });

  it('answers an unknown webhook path with the JSON 404 body', async () => {
    assertErrorBody(
      await post('/no-such-provider', '{}', { 'content-type': 'application/json' }),
      404,
      'NOT_FOUND',
    );
  });

  it('asks for no credentials and ignores Idempotency-Key (the inbox dedupes events)', async () => {
    const headers = {
      'content-type': 'text/plain',
      'idempotency-key': 'same-key',
      authorization: 'Bearer junk',
    };
    const a = await post('/test-provider/echo', 'one', headers);
    const b = await post('/test-provider/echo', 'two', headers);
    assert.equal(a.statusCode, 200, a.body);
    assert.equal(b.statusCode, 200, b.body);
    assert.notEqual(a.json().sha256, b.json().sha256);
  });

  it('records its routes as provider-signed and keeps them out of the OpenAPI document', async () => {
    const route = registeredRoutes(app).find((r) => r.url === `${WEBHOOKS_PREFIX}/test-provider/events`);
    assert.equal(route?.access?.kind, 'provider');
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    // The API's own operations on an organization's endpoints (/v1/webhooks, /v1/webhooks/{webhook_id}…)
    // are documented; no provider route is.
    assert.deepEqual(
      Object.keys(doc.paths).filter(
        (p) => p.startsWith(`${WEBHOOKS_PREFIX}/`) && !p.startsWith(`${WEBHOOKS_PREFIX}/{webhook_id}`),
      ),
      [],
    );
  });

  it('leaves the /v1 API as it is: JSON only, credentials checked', async () => {
    const token = env.platformAdmin.token;
    const text = await env.call('POST', '/v1/api-keys', {
      token,
      body: 'name=form',
      headers: { 'content-type': 'text/plain' },
    });
    assertErrorBody(text, 400, 'VALIDATION_FAILED');
    assertErrorBody(await app.inject({ method: 'GET', url: '/v1/me' }), 401, 'UNAUTHENTICATED');
  });
});

describe('scope rules at registration', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  it('refuses a webhook route that is not declared provider-signed', async () => {
    const app = await buildApp(env.ctx);
    const unsigned: RouteModule = (scope) =>
      scope.post('/test-provider/open', { config: { access: PUBLIC } }, async () => ({}));
    await assert.rejects(
      (async () => {
        await app.register(webhooksScope(env.ctx, [unsigned]), { prefix: WEBHOOKS_PREFIX });
        await app.ready();
      })(),
      /must declare config.access PROVIDER_SIGNED/,
    );
    await app.close();
  });

  it('refuses a provider-signed route in the /v1 API scope', async () => {
    const app = await buildApp(env.ctx);
    const misplaced: RouteModule = (scope) =>
      scope.post('/v1/test-provider/events', { config: { access: PROVIDER_SIGNED } }, async () => ({}));
    await assert.rejects(
      (async () => {
        await app.register(apiScope(env.ctx, [misplaced], [], async () => undefined));
        await app.ready();
      })(),
      /belongs in the webhooks scope/,
    );
    await app.close();
  });
});
