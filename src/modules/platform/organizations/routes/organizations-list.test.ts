import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { insertNetworks, organizationCounter, UNKNOWN_ID, uniqueName } from './organizations.test-setup.ts';

/** GET /v1/organizations and GET /v1/organizations/{organization_id}: who sees which, and the pages. */
describe('organizations', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
    await insertNetworks(env);
  });
  after(() => env.close());

  const organizationCount = organizationCounter(() => env);

  describe('list and get', () => {
    it('lists one organization, the own, for org admins and members', async () => {
      const org = await env.createOrganization();
      await env.createOrganization();
      for (const role of ['ORG_ADMIN', 'ORG_MEMBER'] as const) {
        const actor = await env.createUser(org.id, role);
        const response = await env.call('GET', '/v1/organizations', { token: actor.token });
        assert.equal(response.statusCode, 200);
        const page = response.json();
        assert.deepEqual(
          page.results.map((o: { id: string }) => o.id),
          [org.id],
        );
        assert.equal(page.total_results, 1);
        assert.equal(page.has_more, false);
        assert.equal(page.cursor, null);
      }
    });

    it('lists every organization for platform admins', async () => {
      const a = await env.createOrganization();
      const b = await env.createOrganization();
      const response = await env.call('GET', '/v1/organizations', { token: env.platformAdmin.token });
      assert.equal(response.statusCode, 200);
      const page = response.json();
      assert.equal(page.total_results, await organizationCount());
      const ids = page.results.map((o: { id: string }) => o.id);
      for (const id of [a.id, b.id, env.platformOrganizationId]) assert.ok(ids.includes(id));
    });

    it('requires credentials (401)', async () => {
      const response = await env.call('GET', '/v1/organizations');
      assertError(response, 401, 'UNAUTHENTICATED');
    });

    it('gets the own organization, for admins and members', async () => {
      const org = await env.createOrganization();
      for (const role of ['ORG_ADMIN', 'ORG_MEMBER'] as const) {
        const actor = await env.createUser(org.id, role);
        const response = await env.call('GET', `/v1/organizations/${org.id}`, { token: actor.token });
        assert.equal(response.statusCode, 200);
        assert.equal(response.json().id, org.id);
        assert.equal(response.json().name, org.name);
      }
    });

    it('answers 404, never 403, for another organization or an unknown id', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      for (const id of [other.id, UNKNOWN_ID, env.platformOrganizationId]) {
        const response = await env.call('GET', `/v1/organizations/${id}`, { token: admin.token });
        assertError(response, 404, 'NOT_FOUND');
      }
      const platform = await env.call('GET', `/v1/organizations/${other.id}`, {
        token: env.platformAdmin.token,
      });
      assert.equal(platform.statusCode, 200);
      const unknown = await env.call('GET', `/v1/organizations/${UNKNOWN_ID}`, {
        token: env.platformAdmin.token,
      });
      assert.equal(unknown.statusCode, 404);
    });

    it('answers 400 for an organization id that is not a UUID', async () => {
      const response = await env.call('GET', '/v1/organizations/platform', {
        token: env.platformAdmin.token,
      });
      assertError(response, 400, 'VALIDATION_FAILED');
    });
  });

  describe('pagination', () => {
    it('pages through every organization with limit and cursor, never repeating one', async () => {
      const created = [];
      for (let i = 0; i < 7; i++) created.push(await env.createOrganization(uniqueName(`Paged ${i}`)));
      const total = await organizationCount();
      assert.ok(total >= 8);

      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const query: Record<string, string> = { limit: '3' };
        if (cursor !== undefined) query.cursor = cursor;
        const response = await env.call('GET', '/v1/organizations', {
          token: env.platformAdmin.token,
          query,
        });
        assert.equal(response.statusCode, 200, response.body);
        const page = response.json();
        pages++;
        assert.equal(page.total_results, total);
        assert.ok(page.results.length <= 3);
        seen.push(...page.results.map((o: { id: string }) => o.id));
        if (!page.has_more) {
          assert.equal(page.cursor, null);
          break;
        }
        assert.equal(page.results.length, 3);
        assert.equal(typeof page.cursor, 'string');
        cursor = page.cursor;
      }
      assert.equal(pages, Math.ceil(total / 3));
      assert.equal(seen.length, total);
      assert.equal(new Set(seen).size, total);
      for (const org of created) assert.ok(seen.includes(org.id), org.name);
      assert.equal(seen[0], env.platformOrganizationId);
      // Creation time ascending, ties broken by id.
      const ordered = await env.database.db
        .selectFrom('organizations')
        .select('id')
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        seen,
        ordered.map((o) => o.id),
      );

      const descending: string[] = [];
      cursor = undefined;
      for (;;) {
        const query: Record<string, string> = { limit: '3', order_direction: 'DESC' };
        if (cursor !== undefined) query.cursor = cursor;
        const response = await env.call('GET', '/v1/organizations', {
          token: env.platformAdmin.token,
          query,
        });
        assert.equal(response.statusCode, 200, response.body);
        descending.push(...response.json().results.map((o: { id: string }) => o.id));
        if (!response.json().has_more) break;
        cursor = response.json().cursor;
      }
      assert.deepEqual(descending, [...seen].reverse());
    });

    it('returns everything in one page at the maximum limit of 100', async () => {
      const response = await env.call('GET', '/v1/organizations', {
        token: env.platformAdmin.token,
        query: { limit: '100' },
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().results.length, await organizationCount());
      assert.equal(response.json().has_more, false);
    });

    it('rejects limit 0, limit 101 and a bad order_direction with 400, not a clamp', async () => {
      const queries: Record<string, string>[] = [
        { limit: '0' },
        { limit: '101' },
        { limit: '-1' },
        { order_direction: 'asc' },
      ];
      for (const query of queries) {
        const response = await env.call('GET', '/v1/organizations', {
          token: env.platformAdmin.token,
          query,
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });

    it('rejects a forged cursor, and a cursor reused with another order, with 400 INVALID_CURSOR', async () => {
      await env.createOrganization();
      const first = await env.call('GET', '/v1/organizations', {
        token: env.platformAdmin.token,
        query: { limit: '1' },
      });
      assert.equal(first.json().has_more, true);
      const cursor = first.json().cursor as string;
      const forged = Buffer.from(JSON.stringify({ v: 'x', i: 'y', f: 'z' })).toString('base64url');
      const queries: Record<string, string>[] = [
        { limit: '1', cursor, order_direction: 'DESC' },
        { limit: '1', cursor: forged },
        { limit: '1', cursor: 'not base64 json' },
      ];
      for (const query of queries) {
        const response = await env.call('GET', '/v1/organizations', {
          token: env.platformAdmin.token,
          query,
        });
        assertError(response, 400, 'INVALID_CURSOR');
      }
    });

    it('does not let an org admin reach other organizations with a platform admin cursor', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const platformPage = await env.call('GET', '/v1/organizations', {
        token: env.platformAdmin.token,
        query: { limit: '1' },
      });
      const response = await env.call('GET', '/v1/organizations', {
        token: admin.token,
        query: { limit: '1', cursor: platformPage.json().cursor },
      });
      assertError(response, 400, 'INVALID_CURSOR');
    });
  });
});
