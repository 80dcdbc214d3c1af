import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { ROLE_IDS } from '../../../../access/permissions.ts';
import { UNKNOWN_ID } from './users.test-setup.ts';

/** GET /v1/users and GET /v1/users/{user_id}: who sees which users, filters and pages. */
describe('users', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  describe('list and get', () => {
    it('shows an org admin only the users of its own organization', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const stranger = await env.createUser(other.id, 'ORG_MEMBER');

      const response = await env.call('GET', '/v1/users', { token: admin.token });
      assert.equal(response.statusCode, 200);
      const page = response.json();
      assert.deepEqual(
        page.results.map((u: { id: string }) => u.id).sort(),
        [admin.user.id, member.user.id].sort(),
      );
      assert.equal(page.total_results, 2);
      assert.equal(page.has_more, false);
      assert.equal(page.cursor, null);
      assert.ok(!page.results.some((u: { id: string }) => u.id === stranger.user.id));
    });

    it('gives an org admin an empty list, not another organization users, when filtering by another organization', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      await env.createUser(other.id, 'ORG_MEMBER');
      const response = await env.call('GET', '/v1/users', {
        token: admin.token,
        query: { organization_id: other.id },
      });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json().results, []);
      assert.equal(response.json().total_results, 0);
    });

    it('lets a member read the users of its organization', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const colleague = await env.createUser(org.id, 'ORG_ADMIN');
      const list = await env.call('GET', '/v1/users', { token: member.token });
      assert.equal(list.statusCode, 200);
      assert.equal(list.json().total_results, 2);
      const one = await env.call('GET', `/v1/users/${colleague.user.id}`, { token: member.token });
      assert.equal(one.statusCode, 200);
      assert.equal(one.json().email, colleague.user.email);
    });

    it('shows a platform admin every user, or one organization with organization_id', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const a = await env.createUser(org.id, 'ORG_ADMIN');
      const b = await env.createUser(org.id, 'ORG_MEMBER');
      const c = await env.createUser(other.id, 'ORG_MEMBER');

      const all = await env.call('GET', '/v1/users', { token: env.platformAdmin.token });
      assert.equal(all.statusCode, 200);
      const count = await env.database.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(all.json().total_results, Number(count.n));
      const ids = all.json().results.map((u: { id: string }) => u.id);
      for (const id of [a.user.id, b.user.id, c.user.id, env.platformAdmin.user.id])
        assert.ok(ids.includes(id));

      const filtered = await env.call('GET', '/v1/users', {
        token: env.platformAdmin.token,
        query: { organization_id: org.id },
      });
      assert.equal(filtered.statusCode, 200);
      assert.deepEqual(
        filtered
          .json()
          .results.map((u: { id: string }) => u.id)
          .sort(),
        [a.user.id, b.user.id].sort(),
      );
      assert.equal(filtered.json().total_results, 2);
    });

    it('pages through users with a cursor that is bound to its filter', async () => {
      const org = await env.createOrganization();
      const created = [];
      for (let i = 0; i < 5; i++) created.push(await env.createUser(org.id, 'ORG_MEMBER'));
      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const query: Record<string, string> = { organization_id: org.id, limit: '2' };
        if (cursor) query.cursor = cursor;
        const response = await env.call('GET', '/v1/users', { token: env.platformAdmin.token, query });
        assert.equal(response.statusCode, 200, response.body);
        const page = response.json();
        assert.ok(page.results.length <= 2);
        assert.equal(page.total_results, 5);
        seen.push(...page.results.map((u: { id: string }) => u.id));
        if (!page.has_more) {
          assert.equal(page.cursor, null);
          break;
        }
        cursor = page.cursor;
      }
      const ordered = await env.database.db
        .selectFrom('users')
        .select('id')
        .where('organization_id', '=', org.id)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        seen,
        ordered.map((u) => u.id),
      );
      assert.deepEqual(seen.slice().sort(), created.map((u) => u.user.id).sort());

      const first = await env.call('GET', '/v1/users', {
        token: env.platformAdmin.token,
        query: { organization_id: org.id, limit: '2' },
      });
      const reused = await env.call('GET', '/v1/users', {
        token: env.platformAdmin.token,
        query: { limit: '2', cursor: first.json().cursor },
      });
      assertError(reused, 400, 'INVALID_CURSOR');
    });

    it('rejects out-of-range limits and unknown query parameters with 400', async () => {
      const queries: Record<string, string>[] = [
        { limit: '0' },
        { limit: '101' },
        { order_direction: 'SIDEWAYS' },
        { sort: 'email' },
      ];
      for (const query of queries) {
        const response = await env.call('GET', '/v1/users', { token: env.platformAdmin.token, query });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });

    it('gets a user of the own organization, with last_seen set once it has called the API', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      assert.equal((await env.call('GET', '/v1/me', { token: member.token })).statusCode, 200);
      const response = await env.call('GET', `/v1/users/${member.user.id}`, { token: admin.token });
      assert.equal(response.statusCode, 200);
      const user = response.json();
      assert.equal(user.id, member.user.id);
      assert.equal(user.email, member.user.email);
      assert.equal(user.organization_id, org.id);
      assert.equal(user.role_id, ROLE_IDS.ORG_MEMBER);
      assert.equal(user.active, true);
      assert.notEqual(user.last_seen, null);
      assert.equal('password_hash' in user, false);
      assert.equal('session_version' in user, false);
    });

    it('answers 404, never 403, for a user of another organization or an unknown id', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const stranger = await env.createUser(other.id, 'ORG_ADMIN');
      for (const id of [stranger.user.id, UNKNOWN_ID]) {
        const response = await env.call('GET', `/v1/users/${id}`, { token: admin.token });
        assertError(response, 404, 'NOT_FOUND');
      }
      const platform = await env.call('GET', `/v1/users/${stranger.user.id}`, {
        token: env.platformAdmin.token,
      });
      assert.equal(platform.statusCode, 200);
    });

    it('answers 400 for a user id that is not a UUID', async () => {
      const response = await env.call('GET', '/v1/users/not-a-uuid', { token: env.platformAdmin.token });
      assertError(response, 400, 'VALIDATION_FAILED');
    });
  });
});
