import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { listedPermissions, ROLE_IDS } from '../../../../access/permissions.ts';
import { permissionsInUse } from '../../../../http/route-table.ts';

const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';

describe('API keys', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  async function createKey(actor: Actor, body: Record<string, unknown> = { name: 'key' }) {
    const response = await env.call('POST', '/v1/api-keys', { token: actor.token, body });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { id: string; key: string; name: string; prefix: string };
  }

  describe('create', () => {
    it('returns 201 with the key once, prefixed tis_, and the role permissions', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const response = await env.call('POST', '/v1/api-keys', {
        token: admin.token,
        body: { name: 'deploy' },
      });
      assert.equal(response.statusCode, 201, response.body);
      const created = response.json();
      assert.equal(created.name, 'deploy');
      assert.match(created.key, /^tis_[A-Za-z0-9_-]{40,}$/);
      assert.ok(created.key.startsWith(created.prefix));
      assert.ok(created.prefix.length < created.key.length);
      assert.equal(created.expiration, null);
      assert.equal(created.last_used, null);
      assert.deepEqual(
        [...created.permissions].sort(),
        listedPermissions('ORG_ADMIN', permissionsInUse(env.app)).sort(),
      );
      assert.match(created.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    it('stores only a hash of the key: no column holds the key itself', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const created = await createKey(member, { name: 'hashed' });
      const row = await env.database.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.user_id, member.user.id);
      assert.ok(Buffer.isBuffer(row.key_hash));
      assert.notEqual(row.key_hash.toString('utf8'), created.key);
      assert.equal(row.key_hash.includes(Buffer.from(created.key)), false);
      assert.deepEqual(row.key_hash, createHash('sha256').update(created.key).digest());
      for (const [column, value] of Object.entries(row)) {
        const text = Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
        assert.equal(text.includes(created.key), false, `column ${column} holds the key`);
      }
    });

    it('replays the same key only to the user who created it', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const options = { headers: { 'idempotency-key': `shared-${org.id}` }, body: { name: 'ci' } };
      const first = await env.call('POST', '/v1/api-keys', { ...options, token: admin.token });
      assert.equal(first.statusCode, 201);
      const replay = await env.call('POST', '/v1/api-keys', { ...options, token: admin.token });
      assert.equal(replay.statusCode, 201);
      assert.equal(replay.json().id, first.json().id);
      const colleague = await env.call('POST', '/v1/api-keys', { ...options, token: member.token });
      assert.notEqual(colleague.statusCode, 201);
      assert.equal(colleague.body.includes(first.json().key), false);
    });

    it('gives every key a different secret', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const a = await createKey(member, { name: 'same name' });
      const b = await createKey(member, { name: 'same name' });
      assert.notEqual(a.key, b.key);
      assert.notEqual(a.id, b.id);
    });

    it('accepts a future expiration and returns it with milliseconds', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const expiration = new Date(Date.now() + 30 * 24 * 3600 * 1000);
      expiration.setUTCMilliseconds(0);
      const created = await createKey(member, {
        name: 'expiring',
        expiration: expiration.toISOString().replace('.000Z', 'Z'),
      });
      assert.equal((created as unknown as { expiration: string }).expiration, expiration.toISOString());
      assert.equal((await env.call('GET', '/v1/me', { apiKey: created.key })).statusCode, 200);
    });

    it('accepts an explicit null expiration', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const created = await createKey(member, { name: 'forever', expiration: null });
      assert.equal((created as unknown as { expiration: null }).expiration, null);
    });

    it('rejects an expiration in the past with 400 VALIDATION_FAILED and stores nothing', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const response = await env.call('POST', '/v1/api-keys', {
        token: member.token,
        body: { name: 'stale', expiration: '2020-01-01T00:00:00.000Z' },
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        response.json().error.fields.map((f: { path: string }) => f.path),
        ['/expiration'],
      );
      const rows = await env.database.db
        .selectFrom('api_keys')
        .select('id')
        .where('user_id', '=', member.user.id)
        .execute();
      assert.equal(rows.length, 0);
    });

    it('rejects malformed bodies with 400 VALIDATION_FAILED', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const cases: unknown[] = [
        {},
        { name: '' },
        { name: 'x'.repeat(201) },
        { name: 42 },
        { name: 'x', expiration: 'tomorrow' },
        { name: 'x', permissions: ['platform:admin'] },
      ];
      for (const body of cases) {
        const response = await env.call('POST', '/v1/api-keys', { token: member.token, body });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });

    it('requires credentials (401)', async () => {
      const response = await env.call('POST', '/v1/api-keys', { body: { name: 'anonymous' } });
      assertError(response, 401, 'UNAUTHENTICATED');
    });
  });

  describe('authenticating with a key', () => {
    it('works in X-Api-Key and in Authorization: Bearer, and sets last_used', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const created = await createKey(member, { name: 'both headers' });
      const viaHeader = await env.call('GET', '/v1/me', { apiKey: created.key });
      assert.equal(viaHeader.statusCode, 200);
      assert.equal(viaHeader.json().user.id, member.user.id);
      const viaBearer = await env.call('GET', '/v1/me', { token: created.key });
      assert.equal(viaBearer.statusCode, 200);

      const list = await env.call('GET', '/v1/api-keys', { token: member.token });
      const listed = list.json().results.find((k: { id: string }) => k.id === created.id);
      assert.notEqual(listed.last_used, null);
      assert.ok(!Number.isNaN(Date.parse(listed.last_used)));
    });

    it('acts with its user role: a member key cannot invite users (403), an admin key can', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const memberKey = await createKey(member);
      const adminKey = await createKey(admin);
      const body = (label: string) => ({
        email: `${label}-${member.user.id}@example.test`,
        role_id: ROLE_IDS.ORG_MEMBER,
      });

      const denied = await env.call('POST', '/v1/users', {
        apiKey: memberKey.key,
        body: body('by-member-key'),
      });
      assertError(denied, 403, 'FORBIDDEN');
      const allowed = await env.call('POST', '/v1/users', {
        apiKey: adminKey.key,
        body: body('by-admin-key'),
      });
      assert.equal(allowed.statusCode, 201, allowed.body);
      assert.equal(allowed.json().organization_id, org.id);
    });

    it('follows a change of its user role', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const created = await createKey(member);
      const before = await env.call('GET', '/v1/me', { apiKey: created.key });
      assert.equal(before.json().permissions.includes('users:write'), false);
      const promoted = await env.call('PATCH', `/v1/users/${member.user.id}`, {
        token: env.platformAdmin.token,
        body: { role_id: ROLE_IDS.ORG_ADMIN },
      });
      assert.equal(promoted.statusCode, 200);
      const after = await env.call('GET', '/v1/me', { apiKey: created.key });
      assert.equal(after.json().permissions.includes('users:write'), true);
    });

    it('answers 401 for a key that has expired', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const created = await createKey(member, {
        name: 'short lived',
        expiration: new Date(Date.now() + 3600_000).toISOString(),
      });
      assert.equal((await env.call('GET', '/v1/me', { apiKey: created.key })).statusCode, 200);
      await env.database.db
        .updateTable('api_keys')
        .set({ expiration: new Date(Date.now() - 1000) })
        .where('id', '=', created.id)
        .execute();
      const response = await env.call('GET', '/v1/me', { apiKey: created.key });
      assertError(response, 401, 'UNAUTHENTICATED');
    });

    it('answers 401 for an unknown key, with or without the tis_ prefix', async () => {
      for (const apiKey of ['tis_not-a-real-key-0000000000000000000000', 'garbage']) {
        const response = await env.call('GET', '/v1/me', { apiKey });
        assertError(response, 401, 'UNAUTHENTICATED');
      }
    });

    it('stops working when its organization is disabled', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const created = await createKey(member);
      const disabled = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: env.platformAdmin.token,
        body: { is_enabled: false },
      });
      assert.equal(disabled.statusCode, 200);
      assert.equal((await env.call('GET', '/v1/me', { apiKey: created.key })).statusCode, 401);
    });

    it('stays revoked when a deactivated user is reactivated', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const created = await createKey(member);
      for (const active of [false, true]) {
        const response = await env.call('PATCH', `/v1/users/${member.user.id}`, {
          token: env.platformAdmin.token,
          body: { active },
        });
        assert.equal(response.statusCode, 200);
      }
      const response = await env.call('GET', '/v1/me', { apiKey: created.key });
      assert.equal(response.statusCode, 401);
      const fresh = await env.login(member.user.email, member.password);
      const list = await env.call('GET', '/v1/api-keys', { token: fresh });
      assert.equal(list.json().results.length, 0);
    });
  });

  describe('list', () => {
    it('lists only the caller own live keys and never returns the key itself', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const colleague = await env.createUser(org.id, 'ORG_ADMIN');
      const first = await createKey(member, { name: 'first' });
      const second = await createKey(member, { name: 'second' });
      const revoked = await createKey(member, { name: 'revoked' });
      await createKey(colleague, { name: 'colleague' });
      assert.equal(
        (await env.call('DELETE', `/v1/api-keys/${revoked.id}`, { token: member.token })).statusCode,
        204,
      );

      const response = await env.call('GET', '/v1/api-keys', { token: member.token });
      assert.equal(response.statusCode, 200);
      const page = response.json();
      assert.deepEqual(page.results.map((k: { id: string }) => k.id).sort(), [first.id, second.id].sort());
      assert.equal(page.total_results, 2);
      assert.equal(page.has_more, false);
      assert.equal(page.cursor, null);
      for (const key of page.results) {
        assert.equal('key' in key, false);
        assert.equal('key_hash' in key, false);
        assert.deepEqual(
          [...key.permissions].sort(),
          listedPermissions('ORG_MEMBER', permissionsInUse(env.app)).sort(),
        );
      }
      assert.equal(response.body.includes(first.key), false);
      assert.equal(response.body.includes(second.key), false);
    });

    it('can be called with an API key and pages with a cursor', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const keys = [];
      for (let i = 0; i < 3; i++) keys.push(await createKey(member, { name: `k${i}` }));
      const first = await env.call('GET', '/v1/api-keys', { apiKey: keys[0]!.key, query: { limit: '2' } });
      assert.equal(first.statusCode, 200);
      assert.equal(first.json().has_more, true);
      assert.equal(first.json().total_results, 3);
      const second = await env.call('GET', '/v1/api-keys', {
        apiKey: keys[0]!.key,
        query: { limit: '2', cursor: first.json().cursor },
      });
      assert.equal(second.statusCode, 200);
      assert.equal(second.json().has_more, false);
      const ordered = await env.database.db
        .selectFrom('api_keys')
        .select('id')
        .where('user_id', '=', member.user.id)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      const ascending = ordered.map((k) => k.id);
      assert.deepEqual(ascending.slice().sort(), keys.map((k) => k.id).sort());
      assert.deepEqual(
        [...first.json().results, ...second.json().results].map((k: { id: string }) => k.id),
        ascending,
      );
      const desc = await env.call('GET', '/v1/api-keys', {
        token: member.token,
        query: { order_direction: 'DESC' },
      });
      assert.deepEqual(
        desc.json().results.map((k: { id: string }) => k.id),
        ascending.slice().reverse(),
      );
    });

    it('rejects out-of-range limits with 400', async () => {
      for (const limit of ['0', '101', 'ten']) {
        const response = await env.call('GET', '/v1/api-keys', {
          token: env.platformAdmin.token,
          query: { limit },
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });
  });

  describe('revoke', () => {
    it('revokes the caller own key with 204; the key then answers 401 and a second revoke 404', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const created = await createKey(member);
      assert.equal((await env.call('GET', '/v1/me', { apiKey: created.key })).statusCode, 200);

      const revoked = await env.call('DELETE', `/v1/api-keys/${created.id}`, { token: member.token });
      assert.equal(revoked.statusCode, 204);
      assert.equal(revoked.body, '');
      const use = await env.call('GET', '/v1/me', { apiKey: created.key });
      assertError(use, 401, 'UNAUTHENTICATED');
      const row = await env.database.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(row.revoked_at, null);

      const again = await env.call('DELETE', `/v1/api-keys/${created.id}`, { token: member.token });
      assertError(again, 404, 'NOT_FOUND');
    });

    it('lets a key revoke itself', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const created = await createKey(member);
      const response = await env.call('DELETE', `/v1/api-keys/${created.id}`, { apiKey: created.key });
      assert.equal(response.statusCode, 204);
      assert.equal((await env.call('GET', '/v1/me', { apiKey: created.key })).statusCode, 401);
    });

    it('answers 404 when a member revokes another user key, and the key keeps working', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const colleague = await env.createUser(org.id, 'ORG_MEMBER');
      const created = await createKey(colleague);
      const response = await env.call('DELETE', `/v1/api-keys/${created.id}`, { token: member.token });
      assertError(response, 404, 'NOT_FOUND');
      assert.equal((await env.call('GET', '/v1/me', { apiKey: created.key })).statusCode, 200);
    });

    it('answers 404 when an admin revokes a key of another organization, and the key keeps working', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const stranger = await env.createUser(other.id, 'ORG_MEMBER');
      const created = await createKey(stranger);
      const response = await env.call('DELETE', `/v1/api-keys/${created.id}`, { token: admin.token });
      assertError(response, 404, 'NOT_FOUND');
      assert.equal((await env.call('GET', '/v1/me', { apiKey: created.key })).statusCode, 200);
    });

    it('lets an org admin revoke a key of a member of its organization', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const created = await createKey(member);
      const response = await env.call('DELETE', `/v1/api-keys/${created.id}`, { token: admin.token });
      assert.equal(response.statusCode, 204);
      assert.equal((await env.call('GET', '/v1/me', { apiKey: created.key })).statusCode, 401);
    });

    it('does not let an org admin revoke a platform admin key of its organization (403)', async () => {
      const platformOrgAdmin = await env.createUser(env.platformOrganizationId, 'ORG_ADMIN');
      const created = await createKey(env.platformAdmin, { name: 'platform automation' });
      const response = await env.call('DELETE', `/v1/api-keys/${created.id}`, {
        token: platformOrgAdmin.token,
      });
      assertError(response, 403, 'FORBIDDEN');
      assert.equal((await env.call('GET', '/v1/me', { apiKey: created.key })).statusCode, 200);
    });

    it('lets a platform admin revoke a key in any organization', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const created = await createKey(admin);
      const response = await env.call('DELETE', `/v1/api-keys/${created.id}`, {
        token: env.platformAdmin.token,
      });
      assert.equal(response.statusCode, 204);
      assert.equal((await env.call('GET', '/v1/me', { apiKey: created.key })).statusCode, 401);
    });

    it('answers 404 for an unknown id and 400 for an id that is not a UUID', async () => {
      const unknown = await env.call('DELETE', `/v1/api-keys/${UNKNOWN_ID}`, {
        token: env.platformAdmin.token,
      });
      assertError(unknown, 404, 'NOT_FOUND');
      const malformed = await env.call('DELETE', '/v1/api-keys/123', { token: env.platformAdmin.token });
      assertError(malformed, 400, 'VALIDATION_FAILED');
    });
  });
});
