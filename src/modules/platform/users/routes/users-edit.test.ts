import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { ROLE_IDS } from '../../../../access/permissions.ts';
import { UNKNOWN_ID, uniqueEmail } from './users.test-setup.ts';

/** PATCH /v1/users/{user_id}: roles, deactivation and who may change what. */
describe('users', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  describe('edit', () => {
    it('changes the role of a user of the own organization, effective on its next request', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const body = { email: uniqueEmail('promoted-invites'), role_id: ROLE_IDS.ORG_MEMBER };
      assert.equal((await env.call('POST', '/v1/users', { token: member.token, body })).statusCode, 403);

      const response = await env.call('PATCH', `/v1/users/${member.user.id}`, {
        token: admin.token,
        body: { role_id: ROLE_IDS.ORG_ADMIN },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().role_id, ROLE_IDS.ORG_ADMIN);
      assert.equal((await env.call('POST', '/v1/users', { token: member.token, body })).statusCode, 201);
    });

    it('deactivation revokes the user access tokens and API keys; reactivation allows a new log in', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const key = await env.call('POST', '/v1/api-keys', { token: member.token, body: { name: 'ci' } });
      assert.equal(key.statusCode, 201);
      const apiKey = key.json().key as string;
      assert.equal((await env.call('GET', '/v1/me', { apiKey })).statusCode, 200);

      const deactivated = await env.call('PATCH', `/v1/users/${member.user.id}`, {
        token: admin.token,
        body: { active: false },
      });
      assert.equal(deactivated.statusCode, 200, deactivated.body);
      assert.equal(deactivated.json().active, false);

      const withToken = await env.call('GET', '/v1/me', { token: member.token });
      assertError(withToken, 401, 'UNAUTHENTICATED');
      const withKey = await env.call('GET', '/v1/me', { apiKey });
      assert.equal(withKey.statusCode, 401);
      const login = await env.call('POST', '/v1/auth/login', {
        body: { email: member.user.email, password: member.password },
        ip: '10.77.0.1',
      });
      assertError(login, 401, 'INVALID_CREDENTIALS');

      const reactivated = await env.call('PATCH', `/v1/users/${member.user.id}`, {
        token: admin.token,
        body: { active: true },
      });
      assert.equal(reactivated.statusCode, 200);
      assert.equal(reactivated.json().active, true);
      assert.equal((await env.call('GET', '/v1/me', { token: member.token })).statusCode, 401);
      const fresh = await env.login(member.user.email, member.password);
      assert.equal((await env.call('GET', '/v1/me', { token: fresh })).statusCode, 200);
    });

    it("lets only a platform admin undo a platform admin's deactivation; an org admin undoes its own", async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const patch = (token: string, body: Record<string, unknown>) =>
        env.call('PATCH', `/v1/users/${member.user.id}`, { token, body });
      const activeNow = async () =>
        (
          await env.database.db
            .selectFrom('users')
            .select('active')
            .where('id', '=', member.user.id)
            .executeTakeFirstOrThrow()
        ).active;

      assert.equal((await patch(env.platformAdmin.token, { active: false })).statusCode, 200);
      assertError(await patch(admin.token, { active: true }), 403, 'FORBIDDEN');
      assert.equal(await activeNow(), false);
      // Deactivating again, or editing the role, does not clear the platform admin's decision.
      assert.equal((await patch(admin.token, { active: false })).statusCode, 200);
      assert.equal((await patch(admin.token, { role_id: ROLE_IDS.ORG_MEMBER })).statusCode, 200);
      assertError(await patch(admin.token, { active: true }), 403, 'FORBIDDEN');
      assert.equal(await activeNow(), false);

      const undone = await patch(env.platformAdmin.token, { active: true });
      assert.equal(undone.statusCode, 200, undone.body);
      assert.equal(await activeNow(), true);

      // The org admin's own deactivation stays the org admin's to undo (or the platform's).
      assert.equal((await patch(admin.token, { active: false })).statusCode, 200);
      const own = await patch(admin.token, { active: true });
      assert.equal(own.statusCode, 200, own.body);
      assert.equal(await activeNow(), true);

      // A platform admin deactivating an already deactivated user takes the decision over.
      assert.equal((await patch(admin.token, { active: false })).statusCode, 200);
      assert.equal((await patch(env.platformAdmin.token, { active: false })).statusCode, 200);
      assertError(await patch(admin.token, { active: true }), 403, 'FORBIDDEN');
      assert.equal(await activeNow(), false);
    });

    it('does not let users deactivate themselves or change their own role (409 INVALID_STATE)', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      for (const body of [{ active: false }, { role_id: ROLE_IDS.ORG_MEMBER }]) {
        const response = await env.call('PATCH', `/v1/users/${admin.user.id}`, { token: admin.token, body });
        assertError(response, 409, 'INVALID_STATE');
      }
      const self = await env.call('PATCH', `/v1/users/${env.platformAdmin.user.id}`, {
        token: env.platformAdmin.token,
        body: { active: false },
      });
      assert.equal(self.statusCode, 409);
      assert.equal((await env.call('GET', '/v1/me', { token: admin.token })).statusCode, 200);
      const row = await env.database.db
        .selectFrom('users')
        .select(['active', 'role_id'])
        .where('id', '=', admin.user.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { active: true, role_id: ROLE_IDS.ORG_ADMIN });
    });

    it('accepts a no-op edit of the own record (active true, same role)', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const response = await env.call('PATCH', `/v1/users/${admin.user.id}`, {
        token: admin.token,
        body: { active: true, role_id: ROLE_IDS.ORG_ADMIN },
      });
      assert.equal(response.statusCode, 200);
      assert.equal((await env.call('GET', '/v1/me', { token: admin.token })).statusCode, 200);
    });

    it('does not let an org admin edit a platform admin, nor grant PLATFORM_ADMIN', async () => {
      const platformOrgAdmin = await env.createUser(env.platformOrganizationId, 'ORG_ADMIN');
      for (const body of [{ active: false }, { role_id: ROLE_IDS.ORG_MEMBER }]) {
        const response = await env.call('PATCH', `/v1/users/${env.platformAdmin.user.id}`, {
          token: platformOrgAdmin.token,
          body,
        });
        assertError(response, 403, 'FORBIDDEN');
      }
      assert.equal((await env.call('GET', '/v1/me', { token: env.platformAdmin.token })).statusCode, 200);

      const colleague = await env.createUser(env.platformOrganizationId, 'ORG_MEMBER');
      const escalate = await env.call('PATCH', `/v1/users/${colleague.user.id}`, {
        token: platformOrgAdmin.token,
        body: { role_id: ROLE_IDS.PLATFORM_ADMIN },
      });
      assert.equal(escalate.statusCode, 403);
      const row = await env.database.db
        .selectFrom('users')
        .select('role_id')
        .where('id', '=', colleague.user.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.role_id, ROLE_IDS.ORG_MEMBER);
    });

    it('lets a platform admin edit users of any organization and grant PLATFORM_ADMIN', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const response = await env.call('PATCH', `/v1/users/${member.user.id}`, {
        token: env.platformAdmin.token,
        body: { role_id: ROLE_IDS.PLATFORM_ADMIN },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().role_id, ROLE_IDS.PLATFORM_ADMIN);
      const me = await env.call('GET', '/v1/me', { token: member.token });
      assert.ok(me.json().permissions.includes('platform:admin'));
    });

    it('answers 404 when an org admin edits a user of another organization, and changes nothing', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const stranger = await env.createUser(other.id, 'ORG_MEMBER');
      const response = await env.call('PATCH', `/v1/users/${stranger.user.id}`, {
        token: admin.token,
        body: { active: false },
      });
      assertError(response, 404, 'NOT_FOUND');
      assert.equal((await env.call('GET', '/v1/me', { token: stranger.token })).statusCode, 200);
    });

    it('forbids members to edit users (403)', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const colleague = await env.createUser(org.id, 'ORG_MEMBER');
      const response = await env.call('PATCH', `/v1/users/${colleague.user.id}`, {
        token: member.token,
        body: { active: false },
      });
      assertError(response, 403, 'FORBIDDEN');
    });

    it('rejects an empty body, unknown fields, an unknown role and non-boolean active with 400', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      for (const body of [{}, { email: 'x@example.test' }, { role_id: UNKNOWN_ID }, { active: 'false' }]) {
        const response = await env.call('PATCH', `/v1/users/${member.user.id}`, {
          token: env.platformAdmin.token,
          body,
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });

    it('answers 404 for an unknown user id', async () => {
      const response = await env.call('PATCH', `/v1/users/${UNKNOWN_ID}`, {
        token: env.platformAdmin.token,
        body: { active: true },
      });
      assertError(response, 404, 'NOT_FOUND');
    });
  });
});
