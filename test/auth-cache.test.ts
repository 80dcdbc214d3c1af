import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { ROLE_IDS } from '../src/access/permissions.ts';
import { buildApp } from '../src/app.ts';
import type { AppContext } from '../src/context.ts';
import { createDatabase, type DatabaseHandle } from '../src/db/database.ts';
import type { App } from '../src/http/types.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createServiceContext } from '../src/wiring/ports.ts';
import { type Actor, setupTest, TEST_PASSWORD, type TestEnv, testConfig } from './harness.ts';
import { enrolMfa } from './support/auth.ts';

/**
 * The credential cache across two instances of the service over one database (instance A is the
 * harness's app, B a second app context with its own pool and listening connection): every change
 * to what authentication answers, made through A or directly in the database, stops the cached
 * credential on B within a second; an entry never outlives its lifetime; a lost listening
 * connection clears B's cache.
 */

interface Instance {
  ctx: AppContext;
  app: App;
  database: DatabaseHandle;
  close(): Promise<void>;
}

async function secondInstance(env: TestEnv, overrides: Record<string, string> = {}): Promise<Instance> {
  const config = testConfig(env.databaseUrl, overrides);
  const database = createDatabase(env.databaseUrl, { max: 4 });
  const ctx = createServiceContext(config, database.db, createLogger('silent'));
  await ctx.credentials.listen(env.databaseUrl, ctx.logger);
  const app = await buildApp(ctx);
  await app.ready();
  return {
    ctx,
    app,
    database,
    async close() {
      await app.close();
      await ctx.credentials.close();
      await database.destroy();
    },
  };
}

type Credential = { token: string } | { apiKey: string };

function headersOf(credential: Credential): Record<string, string> {
  return 'token' in credential
    ? { authorization: `Bearer ${credential.token}` }
    : { 'x-api-key': credential.apiKey };
}

async function statusOn(instance: Instance, credential: Credential, url = '/v1/me'): Promise<number> {
  const response = await instance.app.inject({ method: 'GET', url, headers: headersOf(credential) });
  return response.statusCode;
}

/** Polls `check` (every 20 ms) until it holds; fails when it does not within `ms`. */
async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - started > ms) assert.fail(`${what}: not within ${ms} ms`);
    await delay(20);
  }
}

/** Answers 200 on B from B's cache: B's first request caches it, the second is served from it. */
async function cachedOn(instance: Instance, credential: Credential): Promise<void> {
  const before = instance.ctx.credentials.size;
  assert.equal(await statusOn(instance, credential), 200);
  assert.ok(instance.ctx.credentials.size > before || before > 0, 'the credential is cached on B');
  assert.equal(await statusOn(instance, credential), 200);
}

describe('credential cache across instances', () => {
  let env: TestEnv;
  let b: Instance;
  before(async () => {
    env = await setupTest();
    b = await secondInstance(env);
  });
  after(async () => {
    await b.close();
    await env.close();
  });

  async function apiKeyOf(actor: Actor): Promise<{ id: string; apiKey: string }> {
    const response = await env.call('POST', '/v1/api-keys', { token: actor.token, body: { name: 'cache' } });
    assert.equal(response.statusCode, 201, response.body);
    return { id: response.json().id, apiKey: response.json().key };
  }

  it('serves a repeated credential without reading it from the database', async () => {
    const tenant = await env.createTenant();
    const key = await apiKeyOf(tenant.member);
    await cachedOn(b, key);
    await cachedOn(b, { token: tenant.member.token });
  });

  it('syncs called together share round trips, one query at a time on the listening connection, each seeing what was committed before it', async () => {
    const tenant = await env.createTenant();
    const key = await apiKeyOf(tenant.member);
    await cachedOn(b, key);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const revoked = await env.call('DELETE', `/v1/api-keys/${key.id}`, { token: tenant.member.token });
      assert.ok(revoked.statusCode < 300, revoked.body);
      // Fifty requests' syncs at once, as concurrent requests make them.
      await Promise.all(Array.from({ length: 50 }, () => b.ctx.credentials.sync()));
      // The revocation, committed before every sync, is applied: no request waits for a ping.
      assert.equal(await statusOn(b, key), 401);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(
      warnings.filter((w) => w.includes('already executing a query')),
      [],
      'no query is sent while another runs on the connection',
    );
  });

  it('a revoked API key stops working on the other instance within a second', async () => {
    const tenant = await env.createTenant();
    const key = await apiKeyOf(tenant.member);
    await cachedOn(b, key);
    const revoked = await env.call('DELETE', `/v1/api-keys/${key.id}`, { token: tenant.member.token });
    assert.ok(revoked.statusCode < 300, revoked.body);
    await within(1000, 'revoked key refused on B', async () => (await statusOn(b, key)) === 401);
  });

  it('a deleted API key stops working on the other instance within a second', async () => {
    const tenant = await env.createTenant();
    const key = await apiKeyOf(tenant.member);
    await cachedOn(b, key);
    await env.database.db.deleteFrom('api_keys').where('id', '=', key.id).execute();
    await within(1000, 'deleted key refused on B', async () => (await statusOn(b, key)) === 401);
  });

  it('a deactivated user is refused on the other instance within a second (key and token)', async () => {
    const tenant = await env.createTenant();
    const key = await apiKeyOf(tenant.member);
    const token = { token: tenant.member.token };
    await cachedOn(b, key);
    await cachedOn(b, token);
    const edited = await env.call('PATCH', `/v1/users/${tenant.member.user.id}`, {
      token: tenant.admin.token,
      body: { active: false },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    await within(1000, 'deactivated user refused on B', async () => {
      return (await statusOn(b, key)) === 401 && (await statusOn(b, token)) === 401;
    });
  });

  it('a disabled organization is refused on the other instance within a second', async () => {
    const tenant = await env.createTenant();
    const key = await apiKeyOf(tenant.admin);
    await cachedOn(b, key);
    await cachedOn(b, { token: tenant.admin.token });
    const edited = await env.call('PATCH', `/v1/organizations/${tenant.organizationId}`, {
      token: env.platformAdmin.token,
      body: { is_enabled: false },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    await within(1000, 'disabled organization refused on B', async () => {
      return (await statusOn(b, key)) === 401 && (await statusOn(b, { token: tenant.admin.token })) === 401;
    });
  });

  it('a password change revokes older access tokens on the other instance within a second', async () => {
    const tenant = await env.createTenant();
    const old = { token: tenant.member.token };
    await cachedOn(b, old);
    const changed = await env.call('POST', '/v1/auth/change-password', {
      token: tenant.member.token,
      body: { old_password: TEST_PASSWORD, new_password: 'a brand new password 42' },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    await within(1000, 'old token refused on B', async () => (await statusOn(b, old)) === 401);
    assert.equal(await statusOn(b, { token: changed.json().access_token }), 200);
  });

  it('a role change changes the permissions on the other instance within a second', async () => {
    const tenant = await env.createTenant();
    const key = await apiKeyOf(tenant.admin);
    const permissionsOnB = async () =>
      (await b.app.inject({ method: 'GET', url: '/v1/me', headers: headersOf(key) })).json()
        .permissions as string[];
    await cachedOn(b, key);
    assert.ok((await permissionsOnB()).includes('users:write'));
    const edited = await env.call('PATCH', `/v1/users/${tenant.admin.user.id}`, {
      token: env.platformAdmin.token,
      body: { role_id: ROLE_IDS.ORG_MEMBER },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    await within(
      1000,
      'ORG_MEMBER permissions on B',
      async () => !(await permissionsOnB()).includes('users:write'),
    );
  });

  it('an MFA enrolment revokes older access tokens on the other instance within a second', async () => {
    const tenant = await env.createTenant();
    const old = { token: tenant.member.token };
    await cachedOn(b, old);
    const enrolled = await enrolMfa(env, tenant.member.token);
    await within(1000, 'pre-MFA token refused on B', async () => (await statusOn(b, old)) === 401);
    assert.equal(await statusOn(b, { token: enrolled.token }), 200);
  });

  it('an organization requiring MFA locks out its users without MFA on the other instance within a second', async () => {
    const tenant = await env.createTenant();
    const key = await apiKeyOf(tenant.member);
    await cachedOn(b, key);
    assert.equal(await statusOn(b, key, '/v1/roles'), 200);
    const edited = await env.call('PATCH', `/v1/organizations/${tenant.organizationId}`, {
      token: env.platformAdmin.token,
      body: { mfa_required: true },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    await within(1000, 'MFA_REQUIRED on B', async () => (await statusOn(b, key, '/v1/roles')) === 403);
  });

  it('a lost listening connection clears the cache, which fills again once it listens again', async () => {
    const tenant = await env.createTenant();
    const key = await apiKeyOf(tenant.member);
    await cachedOn(b, key);
    const pid = b.ctx.credentials.listenerPid;
    assert.ok(pid !== undefined, 'B listens');
    await sql`SELECT pg_terminate_backend(${pid}::int)`.execute(env.database.db);
    await within(1000, 'cache cleared', async () => b.ctx.credentials.size === 0);
    // Nothing is cached while not listening; once listening again, entries are served and
    // invalidated as before.
    await within(5000, 'listening again', async () => {
      const again = b.ctx.credentials.listenerPid;
      return again !== undefined && again !== pid;
    });
    await cachedOn(b, key);
    assert.ok(b.ctx.credentials.size > 0);
    await env.call('DELETE', `/v1/api-keys/${key.id}`, { token: tenant.member.token });
    await within(
      1000,
      'revoked key refused on B after reconnecting',
      async () => (await statusOn(b, key)) === 401,
    );
  });
});

describe('credential cache lifetime', () => {
  let env: TestEnv;
  let b: Instance;
  before(async () => {
    env = await setupTest({ AUTH_CACHE_TTL: '1' });
    b = await secondInstance(env, { AUTH_CACHE_TTL: '1' });
  });
  after(async () => {
    await b.close();
    await env.close();
  });

  it('an entry is not served after its lifetime, even when no invalidation reaches it', async () => {
    const tenant = await env.createTenant();
    const created = await env.call('POST', '/v1/api-keys', {
      token: tenant.member.token,
      body: { name: 'ttl' },
    });
    const key = { apiKey: created.json().key as string };
    const cachedAt = Date.now();
    await cachedOn(b, key);
    // Revoked with the notifying trigger off: only the entry's lifetime can end it on B.
    await env.database.db.transaction().execute(async (tx) => {
      await sql`ALTER TABLE api_keys DISABLE TRIGGER api_keys_auth_invalidation`.execute(tx);
      await tx
        .updateTable('api_keys')
        .set({ revoked_at: new Date() })
        .where('id', '=', created.json().id)
        .execute();
      await sql`ALTER TABLE api_keys ENABLE TRIGGER api_keys_auth_invalidation`.execute(tx);
    });
    const status = await statusOn(b, key);
    if (Date.now() - cachedAt < 800) assert.equal(status, 200, 'served from the cache within its lifetime');
    await within(1500, 'refused once the entry expired', async () => (await statusOn(b, key)) === 401);
    assert.ok(Date.now() - cachedAt <= 1000 + 1500);
  });
});
