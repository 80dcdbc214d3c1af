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
});
