import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertFields } from './assertions.ts';
import { setupTest, type Tenant, type TestEnv } from './harness.ts';

/** Malformed and hostile input answers a bounded 400, never a 500 or a stalled process. */

const UUID = '01a20e9b-4218-7270-bc46-0c487dff6adf';

describe('hostile input', () => {
  let env: TestEnv;
  let tenant: Tenant;
  before(async () => {
    env = await setupTest();
    tenant = await env.createTenant();
  });
  after(() => env.close());

  describe('UUIDs are accepted in the canonical hyphenated form only', () => {
    const forms = [`urn:uuid:${UUID}`, `{${UUID}}`, UUID.replaceAll('-', '')];

    it('answers 400 for another form in a path parameter, even without credentials', async () => {
      for (const form of forms) {
        const response = await env.call('GET', `/v1/public/collections/${form}/capabilities`);
        assertFields(response, ['params:/collection_id']);
      }
      const item = await env.call('GET', `/v1/items/urn:uuid:${UUID}`, { token: tenant.admin.token });
      assertFields(item, ['params:/item_id']);
    });

    it('answers 400 for another form in a body field', async () => {
      const response = await env.call('POST', '/v1/items/lock', {
        token: tenant.admin.token,
        body: { collection_id: `urn:uuid:${UUID}` },
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.ok(
        response.json().error.fields.some((f: { path: string }) => f.path === '/collection_id'),
        response.body,
      );
    });

    it('answers 400 for another form in a query filter', async () => {
      const response = await env.call('GET', '/v1/items', {
        token: tenant.admin.token,
        query: { collection_id: `urn:uuid:${UUID}` },
      });
      assertFields(response, ['querystring:/collection_id']);
    });

    it('takes the canonical form in any case', async () => {
      for (const form of [UUID, UUID.toUpperCase()]) {
        const response = await env.call('GET', `/v1/public/collections/${form}/capabilities`);
        assertError(response, 404, 'NOT_FOUND');
      }
    });
  });

  describe('error answers are bounded', () => {
    const MAX_ERROR_BYTES = 64 * 1024;

    function login(body: string) {
      return env.call('POST', '/v1/auth/login', { body, headers: { 'content-type': 'application/json' } });
    }

    it('answers a login body of 90,000 unknown fields with a few fields, under 64 KB', async () => {
      const fields = Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`f${i}`, 1]));
      const response = await login(JSON.stringify({ email: 'a@example.test', password: 'x', ...fields }));
      const error = assertError(response, 400, 'VALIDATION_FAILED');
      assert.ok(response.rawPayload.length < MAX_ERROR_BYTES, `${response.rawPayload.length} bytes`);
      assert.ok(error.fields && error.fields.length >= 1 && error.fields.length <= 21, response.body);
    });

    it('lists the first 20 problems and says how many more there were', async () => {
      const fields = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, 1]));
      const response = await login(
        JSON.stringify({ email: 'a@example.test', password: 'xxxxxxxx', ...fields }),
      );
      const error = assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        Array.from({ length: 20 }, (_, i) => `/f${i}`),
      );
      assert.match(error.detail, /\b30 more\b/);
    });

    it('shortens a field named by a key of 900 KB', async () => {
      const response = await login(JSON.stringify({ ['k'.repeat(900_000)]: 1 }));
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.ok(response.rawPayload.length < MAX_ERROR_BYTES, `${response.rawPayload.length} bytes`);
    });

    it('shortens fields named by keys of control characters (escaped six times longer in JSON)', async () => {
      const keys = Array.from(
        { length: 25 },
        (_, i) => `${String.fromCharCode(1 + i)}${'\u0001'.repeat(6_000)}`,
      );
      const response = await login(JSON.stringify(Object.fromEntries(keys.map((k) => [k, 1]))));
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.ok(response.rawPayload.length < MAX_ERROR_BYTES, `${response.rawPayload.length} bytes`);
    });
  });

  describe('numbers in query strings and paths are plain decimals', () => {
    it('refuses hex, exponents, a leading + or 0 and whitespace in an integer query parameter', async () => {
      for (const limit of ['0x10', '1e1', '+5', ' 5', '5 ', '05', '5.0', '']) {
        const response = await env.call('GET', '/v1/networks', {
          token: tenant.admin.token,
          query: { limit },
        });
        assertFields(response, ['querystring:/limit']);
      }
    });

    it('refuses them in an integer path parameter', async () => {
      for (const id of ['0x10', '1e1', '+5', '05']) {
        const response = await env.call('GET', `/v1/networks/${encodeURIComponent(id)}`, {
          token: tenant.admin.token,
        });
        assertFields(response, ['params:/network_id']);
      }
    });

    it('takes a plain decimal, and the default when the parameter is absent', async () => {
      await env.insertNetwork(7001);
      await env.insertNetwork(7002);
      const one = await env.call('GET', '/v1/networks', { token: tenant.admin.token, query: { limit: '1' } });
      assert.equal(one.statusCode, 200, one.body);
      assert.equal(one.json().results.length, 1);
      const all = await env.call('GET', '/v1/networks', { token: tenant.admin.token });
      assert.equal(all.statusCode, 200, all.body);
      assert.ok(all.json().results.length >= 2);
      const network = await env.call('GET', '/v1/networks/7001', { token: tenant.admin.token });
      assert.equal(network.statusCode, 200, network.body);
    });

    it('documents limit as optional, with its default', async () => {
      const doc = (await env.call('GET', '/openapi.json')).json();
      const limits = Object.values(doc.paths as Record<string, Record<string, Operation>>)
        .flatMap((ops) => Object.values(ops))
        .flatMap((op) => op.parameters ?? [])
        .filter((p) => p.in === 'query' && p.name === 'limit');
      assert.ok(limits.length > 10, `${limits.length} limit parameters`);
      for (const limit of limits) {
        assert.notEqual(limit.required, true, JSON.stringify(limit));
        assert.equal(typeof limit.schema?.default, 'number', JSON.stringify(limit));
      }
    });
  });
});

interface Operation {
  parameters?: { in: string; name: string; required?: boolean; schema?: { default?: unknown } }[];
}
