import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { listedPermissions, RESOURCE_GROUPS, ROLE_IDS } from '../../../../access/permissions.ts';
import { permissionsInUse } from '../../../../http/route-table.ts';

interface MeBody {
  organization: { id: string; name: string; is_enabled: boolean; mfa_required: boolean };
  permissions: string[];
  user: { id: string; email: string; organization_id: string; role_id: string; mfa_enabled: boolean };
}

describe('GET /v1/me', () => {
  let env: TestEnv;
  let organization: { id: string; name: string };
  let admin: Actor;
  let member: Actor;
  before(async () => {
    env = await setupTest();
    organization = await env.createOrganization();
    admin = await env.createUser(organization.id, 'ORG_ADMIN');
    member = await env.createUser(organization.id, 'ORG_MEMBER');
  });
  after(() => env.close());

  const me = async (options: { token?: string; apiKey?: string }): Promise<MeBody> => {
    const response = await env.call('GET', '/v1/me', options);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as MeBody;
  };

  it('answers {organization, permissions, user} of the caller', async () => {
    const body = await me({ token: admin.token });
    assert.deepEqual(Object.keys(body).sort(), ['organization', 'permissions', 'user']);
    assert.equal(body.user.id, admin.user.id);
    assert.equal(body.user.email, admin.user.email);
    assert.equal(body.user.organization_id, organization.id);
    assert.equal(body.user.role_id, ROLE_IDS.ORG_ADMIN);
    assert.equal(body.user.mfa_enabled, false);
    assert.equal(body.organization.id, organization.id);
    assert.equal(body.organization.name, organization.name);
    assert.equal(body.organization.is_enabled, true);
    assert.equal('password_hash' in body.user, false);
  });

  it('gives an organization admin every permission of its organization but platform ones', async () => {
    const { permissions } = await me({ token: admin.token });
    assert.deepEqual(
      [...permissions].sort(),
      listedPermissions('ORG_ADMIN', permissionsInUse(env.app)).sort(),
    );
    assert.ok(permissions.includes('users:write'));
    assert.ok(!permissions.includes('platform:admin'));
    assert.ok(!permissions.includes('networks:write'));
  });

  it('gives a member read-only permissions plus api_keys:write', async () => {
    const { permissions } = await me({ token: member.token });
    const inUse = permissionsInUse(env.app);
    const expected = [...RESOURCE_GROUPS.map((group) => `${group}:read`), 'api_keys:write'];
    assert.deepEqual([...permissions].sort(), expected.filter((p) => inUse.has(p as never)).sort());
  });

  it('gives the platform admin platform:admin and every write', async () => {
    const body = await me({ token: env.platformAdmin.token });
    assert.equal(body.user.id, env.platformAdmin.user.id);
    assert.equal(body.organization.id, env.platformOrganizationId);
    assert.ok(body.permissions.includes('platform:admin'));
    const inUse = permissionsInUse(env.app);
    for (const group of RESOURCE_GROUPS) {
      if (inUse.has(`${group}:write`)) assert.ok(body.permissions.includes(`${group}:write`), group);
    }
  });

  it("answers the key owner's context to an API key", async () => {
    const created = await env.call('POST', '/v1/api-keys', { token: member.token, body: { name: 'me' } });
    assert.equal(created.statusCode, 201, created.body);
    const body = await me({ apiKey: created.json().key });
    assert.equal(body.user.id, member.user.id);
    assert.deepEqual(
      [...body.permissions].sort(),
      listedPermissions('ORG_MEMBER', permissionsInUse(env.app)).sort(),
    );
  });

  it('answers UNAUTHENTICATED without credentials', async () => {
    assertError(await env.call('GET', '/v1/me'), 401, 'UNAUTHENTICATED');
  });

  it('records last_seen on an authenticated request, to the minute (no write on every request)', async () => {
    const user = await env.createUser(organization.id, 'ORG_MEMBER');
    const lastSeen = () =>
      env.database.db
        .selectFrom('users')
        .select('last_seen')
        .where('id', '=', user.user.id)
        .executeTakeFirstOrThrow();
    await me({ token: user.token });
    const first = (await lastSeen()).last_seen;
    assert.ok(first instanceof Date, 'last_seen is set by the first request');
    await me({ token: user.token });
    assert.equal(
      (await lastSeen()).last_seen?.getTime(),
      first.getTime(),
      'a request within the minute writes nothing',
    );
    const stale = new Date(Date.now() - 5 * 60_000);
    await env.database.db
      .updateTable('users')
      .set({ last_seen: stale })
      .where('id', '=', user.user.id)
      .execute();
    // A write of last_seen notifies no instance: the cached credential keeps the time this
    // instance wrote it until the entry's lifetime ends, as it ends here.
    env.ctx.credentials.clear();
    await me({ token: user.token });
    assert.ok(
      ((await lastSeen()).last_seen?.getTime() ?? 0) > stale.getTime(),
      'a stale last_seen is refreshed',
    );
  });
});
