import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { RESOURCE_GROUPS, ROLE_IDS, ROLE_PERMISSIONS } from '../../../../access/permissions.ts';
import { permissionsInUse, registeredRoutes } from '../../../../http/route-table.ts';

interface Role {
  id: string;
  name: string;
  description: string;
  permissions: string[];
}

describe('GET /v1/roles', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  async function listRoles(token: string): Promise<Role[]> {
    const response = await env.call('GET', '/v1/roles', { token });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().results;
  }

  it('lists PLATFORM_ADMIN, ORG_ADMIN and ORG_MEMBER with their fixed ids, in creation order', async () => {
    const response = await env.call('GET', '/v1/roles', { token: env.platformAdmin.token });
    assert.equal(response.statusCode, 200);
    const page = response.json();
    assert.deepEqual(
      page.results.map((r: Role) => [r.name, r.id]),
      [
        ['PLATFORM_ADMIN', ROLE_IDS.PLATFORM_ADMIN],
        ['ORG_ADMIN', ROLE_IDS.ORG_ADMIN],
        ['ORG_MEMBER', ROLE_IDS.ORG_MEMBER],
      ],
    );
    assert.equal(page.total_results, 3);
    assert.equal(page.has_more, false);
    assert.equal(page.cursor, null);
    for (const role of page.results as Role[]) assert.ok(role.description.length > 0, role.name);
  });

  it('gives PLATFORM_ADMIN every permission a route requires, platform:admin included', async () => {
    const roles = await listRoles(env.platformAdmin.token);
    const platform = roles.find((r) => r.name === 'PLATFORM_ADMIN')!;
    assert.deepEqual([...platform.permissions].sort(), [...permissionsInUse(env.app)].sort());
    assert.ok(platform.permissions.includes('platform:admin'));
  });

  it('lists only permissions that guard at least one registered route', async () => {
    const roles = await listRoles(env.platformAdmin.token);
    const routes = registeredRoutes(env.app);
    for (const role of roles) {
      for (const permission of role.permissions) {
        const guarded = routes.filter(
          (r) => r.access?.kind === 'permission' && r.access.permission === permission,
        );
        assert.ok(guarded.length > 0, `${role.name} lists ${permission}, which guards no route`);
      }
    }
  });

  it('leaves out permissions granted for route groups that do not exist yet', async () => {
    const roles = await listRoles(env.platformAdmin.token);
    const inUse = permissionsInUse(env.app);
    for (const role of roles) {
      const granted = ROLE_PERMISSIONS[role.name as keyof typeof ROLE_PERMISSIONS];
      const expected = granted.filter((p) => inUse.has(p));
      assert.deepEqual([...role.permissions].sort(), [...expected].sort(), role.name);
    }
  });

  it('gives ORG_ADMIN every read and every write but networks:write, and no platform:admin', async () => {
    const roles = await listRoles(env.platformAdmin.token);
    const admin = roles.find((r) => r.name === 'ORG_ADMIN')!;
    const inUse = permissionsInUse(env.app);
    for (const group of RESOURCE_GROUPS) {
      if (inUse.has(`${group}:read`)) assert.ok(admin.permissions.includes(`${group}:read`), group);
      if (inUse.has(`${group}:write`)) {
        assert.equal(admin.permissions.includes(`${group}:write`), group !== 'networks', group);
      }
    }
    assert.equal(admin.permissions.includes('platform:admin'), false);
  });

  it('gives ORG_MEMBER every read, api_keys:write and no other write', async () => {
    const roles = await listRoles(env.platformAdmin.token);
    const member = roles.find((r) => r.name === 'ORG_MEMBER')!;
    const inUse = permissionsInUse(env.app);
    const expected = [...RESOURCE_GROUPS.map((g) => `${g}:read` as const), 'api_keys:write' as const];
    assert.deepEqual([...member.permissions].sort(), expected.filter((p) => inUse.has(p)).sort());
  });

  it('uses only <resource>:read, <resource>:write and platform:admin permission strings', async () => {
    const roles = await listRoles(env.platformAdmin.token);
    const pattern = new RegExp(`^((${RESOURCE_GROUPS.join('|')}):(read|write)|platform:admin)$`);
    for (const role of roles) {
      for (const permission of role.permissions) assert.match(permission, pattern, role.name);
      assert.equal(
        new Set(role.permissions).size,
        role.permissions.length,
        `${role.name} repeats a permission`,
      );
    }
  });

  it('matches the permissions GET /v1/me reports for a user of each role', async () => {
    const org = await env.createOrganization();
    const roles = await listRoles(env.platformAdmin.token);
    const actors = {
      PLATFORM_ADMIN: env.platformAdmin,
      ORG_ADMIN: await env.createUser(org.id, 'ORG_ADMIN'),
      ORG_MEMBER: await env.createUser(org.id, 'ORG_MEMBER'),
    };
    for (const [name, actor] of Object.entries(actors)) {
      const me = await env.call('GET', '/v1/me', { token: actor.token });
      assert.equal(me.statusCode, 200);
      const role = roles.find((r) => r.name === name)!;
      assert.equal(actor.user.role_id, role.id);
      assert.deepEqual([...me.json().permissions].sort(), [...role.permissions].sort(), name);
    }
  });

  it('is open to any authenticated user, including members and API keys, and the same for all', async () => {
    const org = await env.createOrganization();
    const member = await env.createUser(org.id, 'ORG_MEMBER');
    const asMember = await listRoles(member.token);
    assert.deepEqual(asMember, await listRoles(env.platformAdmin.token));
    const key = await env.call('POST', '/v1/api-keys', { token: member.token, body: { name: 'roles' } });
    const viaKey = await env.call('GET', '/v1/roles', { apiKey: key.json().key });
    assert.equal(viaKey.statusCode, 200);
    assert.equal(viaKey.json().results.length, 3);
  });

  it('answers 401 without credentials or with a bad token', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const response = await env.call('GET', '/v1/roles', token === undefined ? {} : { token });
      assertError(response, 401, 'UNAUTHENTICATED');
    }
  });

  it('pages with limit, cursor and order_direction', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const query: Record<string, string> = { limit: '1' };
      if (cursor !== undefined) query.cursor = cursor;
      const response = await env.call('GET', '/v1/roles', { token: env.platformAdmin.token, query });
      assert.equal(response.statusCode, 200, response.body);
      const page = response.json();
      assert.equal(page.total_results, 3);
      names.push(...page.results.map((r: Role) => r.name));
      if (!page.has_more) break;
      cursor = page.cursor;
    }
    assert.deepEqual(names, ['PLATFORM_ADMIN', 'ORG_ADMIN', 'ORG_MEMBER']);

    const desc = await env.call('GET', '/v1/roles', {
      token: env.platformAdmin.token,
      query: { order_direction: 'DESC' },
    });
    assert.deepEqual(
      desc.json().results.map((r: Role) => r.name),
      ['ORG_MEMBER', 'ORG_ADMIN', 'PLATFORM_ADMIN'],
    );
  });

  it('rejects out-of-range limits and unknown query parameters with 400', async () => {
    const queries: Record<string, string>[] = [{ limit: '0' }, { limit: '101' }, { role: 'ORG_ADMIN' }];
    for (const query of queries) {
      const response = await env.call('GET', '/v1/roles', { token: env.platformAdmin.token, query });
      assertError(response, 400, 'VALIDATION_FAILED');
    }
  });
});
