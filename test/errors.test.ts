import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PUBLIC } from '../src/access/access.ts';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/types.ts';
import { ApiError } from '../src/lib/errors.ts';
import { assertError } from './assertions.ts';
import { setupTest, type TestEnv } from './harness.ts';

/** docs/api.md#errors: every non-2xx answer has the error body, with the request id of its response. */

describe('error responses', () => {
  let env: TestEnv;
  let token: string;
  before(async () => {
    env = await setupTest();
    token = env.platformAdmin.token;
  });
  after(() => env.close());

  it('answers an unknown route with 404 NOT_FOUND', async () => {
    assertError(await env.call('GET', '/v1/no-such-thing'), 404, 'NOT_FOUND');
    assertError(await env.call('DELETE', '/v1/organizations', { token }), 404, 'NOT_FOUND');
    assertError(await env.call('GET', '/nowhere'), 404, 'NOT_FOUND');
  });

  it('answers a malformed URL with the error body, not the framework default', async () => {
    assertError(await env.call('GET', '/v1/users/%zz'), 400, 'VALIDATION_FAILED');
  });

  it('refuses a body that is not JSON with 400 VALIDATION_FAILED', async () => {
    const response = await env.call('POST', '/v1/organizations', {
      token,
      body: '{"name": "unterminated',
      headers: { 'content-type': 'application/json' },
    });
    assertError(response, 400, 'VALIDATION_FAILED');
  });

  it('refuses an unknown body field, naming it in fields', async () => {
    const response = await env.call('POST', '/v1/organizations', {
      token,
      body: { name: 'Typo Inc', mfa_requird: true },
    });
    const error = assertError(response, 400, 'VALIDATION_FAILED');
    assert.deepEqual(
      error.fields?.map((f) => f.path),
      ['/mfa_requird'],
    );
  });

  it('names every invalid field at once, with its JSON pointer', async () => {
    const response = await env.call('POST', '/v1/organizations', {
      token,
      body: { platform_sale_fee: 10001, auto_fund: 'yes' },
    });
    const error = assertError(response, 400, 'VALIDATION_FAILED');
    const paths = error.fields?.map((f) => f.path).sort();
    assert.deepEqual(paths, ['/auto_fund', '/name', '/platform_sale_fee']);
  });

  it('never coerces body types: a string where an integer or boolean is expected is a 400', async () => {
    for (const body of [
      { name: 'Coerced Inc', platform_sale_fee: '5' },
      { name: 'Coerced Inc', mfa_required: 'true' },
      { name: 'Coerced Inc', auto_fund: 1 },
      { name: 42 },
    ]) {
      const error = assertError(
        await env.call('POST', '/v1/organizations', { token, body }),
        400,
        'VALIDATION_FAILED',
      );
      assert.equal(error.fields?.length, 1, JSON.stringify(error));
    }
    const count = await env.database.db
      .selectFrom('organizations')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('name', '=', 'Coerced Inc')
      .executeTakeFirstOrThrow();
    assert.equal(count.n, '0');
  });

  it('coerces query strings from text, but still checks their range', async () => {
    const ok = await env.call('GET', '/v1/organizations', { token, query: { limit: '5' } });
    assert.equal(ok.statusCode, 200, ok.body);
    const error = assertError(
      await env.call('GET', '/v1/organizations', { token, query: { limit: 'five' } }),
      400,
      'VALIDATION_FAILED',
    );
    assert.deepEqual(
      error.fields?.map((f) => f.path),
      ['querystring:/limit'],
    );
  });

  it('refuses a body over 1 MiB with 400 VALIDATION_FAILED', async () => {
    const response = await env.call('POST', '/v1/organizations', {
      token,
      body: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    const error = assertError(response, 400, 'VALIDATION_FAILED');
    assert.match(error.detail, /larger than/);
  });

  it('refuses any content type but JSON with 400 VALIDATION_FAILED', async () => {
    for (const [contentType, payload] of [
      ['application/x-www-form-urlencoded', 'name=Form+Inc'],
      ['text/plain', '{"name":"Text Inc"}'],
      ['application/xml', '<name>Xml Inc</name>'],
    ] as const) {
      const response = await env.call('POST', '/v1/organizations', {
        token,
        body: payload,
        headers: { 'content-type': contentType },
      });
      const error = assertError(response, 400, 'VALIDATION_FAILED');
      assert.match(error.detail, /application\/json/, contentType);
    }
    // Not even on an operation without a body.
    const bodyless = await env.call('POST', '/v1/me/mfa', {
      token,
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    assertError(bodyless, 400, 'VALIDATION_FAILED');
  });

  it('accepts JSON with a charset parameter', async () => {
    const response = await env.call('POST', '/v1/api-keys', {
      token,
      body: '{"name":"charset"}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(response.statusCode, 201, response.body);
  });

  it('refuses a __proto__ key anywhere in a body', async () => {
    const response = await env.call('PATCH', `/v1/organizations/${env.platformOrganizationId}`, {
      token,
      body: '{"name": "Proto", "nested": {"__proto__": {"is_enabled": false}}}',
      headers: { 'content-type': 'application/json' },
    });
    // Refused by the parser, before any schema (free-form fields would not catch it).
    assert.match(assertError(response, 400, 'VALIDATION_FAILED').detail, /__proto__/);
  });

  it('refuses U+0000 in a body string or key and in a query string, which PostgreSQL cannot store', async () => {
    // These were 500s: text and jsonb columns refuse the character.
    const before = await env.call('GET', '/v1/api-keys', { token });
    for (const [body, path] of [
      [{ name: 'a\u0000b' }, '/name'],
      [String.raw`{"name": "key", "x": {"a\u0000": 1}}`, '/x/a\u0000'],
    ] as const) {
      const response = await env.call('POST', '/v1/api-keys', {
        token,
        body: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      const error = assertError(response, 400, 'VALIDATION_FAILED');
      assert.equal(error.fields?.[0]?.path, path);
    }
    const query = await env.call('GET', '/v1/organizations?name=%00', { token });
    assert.equal(assertError(query, 400, 'VALIDATION_FAILED').fields?.[0]?.path, 'querystring:/name');
    // A backslash followed by "u0000" is ordinary text.
    const text = await env.call('POST', '/v1/api-keys', { token, body: { name: 'see \\u0000' } });
    assert.equal(text.statusCode, 201, text.body);
    const after = await env.call('GET', '/v1/api-keys', { token });
    assert.equal(after.json().total_results, before.json().total_results + 1);
  });

  it('echoes a well-formed incoming x-request-id, in the header and the error body', async () => {
    const response = await env.call('GET', '/v1/no-such-thing', {
      headers: { 'x-request-id': 'trace-42.a_b' },
    });
    assert.equal(response.headers['x-request-id'], 'trace-42.a_b');
    assert.equal(assertError(response, 404, 'NOT_FOUND').request_id, 'trace-42.a_b');
    const ok = await env.call('GET', '/v1/me', { token, headers: { 'x-request-id': 'trace-43' } });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['x-request-id'], 'trace-43');
  });

  it('replaces an incoming x-request-id that is too long or has odd characters', async () => {
    for (const incoming of ['x'.repeat(129), 'has space', 'semi;colon']) {
      const response = await env.call('GET', '/v1/no-such-thing', { headers: { 'x-request-id': incoming } });
      const error = assertError(response, 404, 'NOT_FOUND');
      assert.notEqual(error.request_id, incoming);
      assert.match(error.request_id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('gives each request its own generated id', async () => {
    const a = await env.call('GET', '/v1/me');
    const b = await env.call('GET', '/v1/me');
    assert.notEqual(assertError(a, 401, 'UNAUTHENTICATED').request_id, b.headers['x-request-id']);
  });
});

describe('5xx responses', () => {
  let env: TestEnv;
  let app: App;
  before(async () => {
    env = await setupTest();
    // A second app over the same context, with routes that fail the ways production code can.
    app = await buildApp(env.ctx);
    app.get('/v1/test/throws', { config: { access: PUBLIC } }, async () => {
      throw new Error('secret detail at /work/main/src/whatever.ts:12');
    });
    app.get('/v1/test/bad-sql', { config: { access: PUBLIC } }, async () => {
      await env.ctx.db
        .selectFrom('no_such_table' as 'users')
        .selectAll()
        .execute();
      return {};
    });
    app.get('/v1/test/db-down', { config: { access: PUBLIC } }, async () => {
      throw Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
      });
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await env.close();
  });

  for (const [path, status, code] of [
    ['/v1/test/throws', 500, 'INTERNAL'],
    ['/v1/test/bad-sql', 500, 'INTERNAL'],
    ['/v1/test/db-down', 503, 'UNAVAILABLE'],
  ] as const) {
    it(`${path} answers ${status} ${code} without stack trace, SQL or message of the cause`, async () => {
      const response = await app.inject({ method: 'GET', url: path });
      const error = assertError(response, status, code);
      assert.deepEqual(Object.keys(error).sort(), ['code', 'detail', 'request_id']);
      for (const leak of [/\bat\s/, /\.ts:\d+/, /no_such_table/, /select/i, /secret/, /terminating/]) {
        assert.doesNotMatch(response.body, leak);
      }
    });
  }
});

describe('ApiError', () => {
  it('keeps a stack trace for a 5xx answer (logged) and none for a 4xx one (never logged), leaving the process limit as it was', () => {
    const limit = Error.stackTraceLimit;
    const refused = new ApiError('INSUFFICIENT_SUPPLY', 'fewer than 1 units are available');
    const failed = new ApiError('UPSTREAM_FAILED', 'the provider failed');
    assert.equal(refused.status, 422);
    assert.equal(refused.message, 'fewer than 1 units are available');
    assert.equal(refused.stack, 'ApiError: fewer than 1 units are available', 'no frames');
    assert.match(failed.stack ?? '', /\n\s+at /, 'a 5xx ApiError has its frames');
    assert.equal(Error.stackTraceLimit, limit);
    assert.match(new Error('plain').stack ?? '', /\n\s+at /);
  });
});
