import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import argon2 from 'argon2';
import { createTestDatabase } from '../test/harness.ts';
import { ROLE_IDS } from './access/permissions.ts';
import { buildApp } from './app.ts';
import { bootstrapAdmin, GENERATED_ADMIN_EMAIL } from './bootstrap.ts';
import { createDatabase, type DatabaseHandle } from './db/database.ts';
import { type Config, parseConfig } from './lib/config.ts';
import { createLogger } from './lib/logger.ts';
import { createServiceContext } from './wiring/ports.ts';

const SECRET_KEY = 'bootstrap-test-secret-key-0123456789abcdef';

/** A migrated database with no user at all, as on a first start; dropped after the test. */
async function emptyDatabase(
  cleanups: (() => Promise<void>)[],
): Promise<{ url: string; database: DatabaseHandle }> {
  const { url, drop } = await createTestDatabase();
  const database = createDatabase(url, { max: 4 });
  cleanups.push(async () => {
    await database.destroy();
    await drop();
  });
  const users = await database.db.selectFrom('users').select('id').execute();
  assert.equal(users.length, 0, 'the database starts without users');
  return { url, database };
}

function externalConfig(url: string, env: Record<string, string> = {}): Config {
  return parseConfig({ DATABASE_URL: url, SECRET_KEY, LOG_LEVEL: 'silent', ...env });
}

async function everyone(database: DatabaseHandle) {
  const users = await database.db.selectFrom('users').selectAll().execute();
  const organizations = await database.db.selectFrom('organizations').selectAll().execute();
  return { users, organizations };
}

describe('bootstrap admin (docs/api.md#authentication-and-roles)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'tis-bootstrap-'));
  });
  after(async () => {
    for (const cleanup of cleanups) await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates one platform admin and the organization "Platform" from BOOTSTRAP_ADMIN_*', async () => {
    const { url, database } = await emptyDatabase(cleanups);
    const config = externalConfig(url, {
      BOOTSTRAP_ADMIN_EMAIL: 'Root@Example.test',
      BOOTSTRAP_ADMIN_PASSWORD: 'a long enough password',
    });
    const result = await bootstrapAdmin(database.db, config);
    assert.ok(result);
    assert.equal(result.email, 'root@example.test');
    assert.equal(result.generatedPassword, undefined, 'a given password is never printed');

    const { users, organizations } = await everyone(database);
    assert.equal(users.length, 1);
    assert.equal(organizations.length, 1);
    const [admin] = users;
    const [organization] = organizations;
    assert.equal(admin?.email, 'root@example.test');
    assert.equal(admin?.role_id, ROLE_IDS.PLATFORM_ADMIN);
    assert.ok(admin?.verified_at, 'the admin can log in at once');
    assert.ok(admin?.password_hash && (await argon2.verify(admin.password_hash, 'a long enough password')));
    assert.equal(organization?.name, 'Platform');
    assert.equal(organization?.id, result.organizationId);
    assert.equal(admin?.organization_id, organization?.id);
  });

  it('names the organization after BOOTSTRAP_ORG_NAME and does nothing once a user exists', async () => {
    const { url, database } = await emptyDatabase(cleanups);
    const config = externalConfig(url, {
      BOOTSTRAP_ADMIN_EMAIL: 'root@example.test',
      BOOTSTRAP_ADMIN_PASSWORD: 'a long enough password',
      BOOTSTRAP_ORG_NAME: 'Acme Tokens',
    });
    const first = await bootstrapAdmin(database.db, config);
    assert.ok(first);
    assert.equal(await bootstrapAdmin(database.db, config), undefined);
    const { users, organizations } = await everyone(database);
    assert.equal(users.length, 1);
    assert.deepEqual(
      organizations.map((o) => o.name),
      ['Acme Tokens'],
    );
  });

  it('creates exactly one admin when two instances start together on an empty database', async () => {
    const { url, database } = await emptyDatabase(cleanups);
    // Two instances: two pools, as two processes would have.
    const other = createDatabase(url, { max: 2 });
    cleanups.unshift(() => other.destroy());
    const config = externalConfig(url, {
      BOOTSTRAP_ADMIN_EMAIL: 'root@example.test',
      BOOTSTRAP_ADMIN_PASSWORD: 'a long enough password',
    });
    const results = await Promise.all([
      bootstrapAdmin(database.db, config),
      bootstrapAdmin(other.db, config),
      bootstrapAdmin(database.db, config),
    ]);
    assert.equal(results.filter((r) => r !== undefined).length, 1);
    const { users, organizations } = await everyone(database);
    assert.equal(users.length, 1);
    assert.equal(organizations.length, 1);
  });

  it('generates an admin whose printed password logs in, in the embedded mode without BOOTSTRAP_*', async () => {
    const { database } = await emptyDatabase(cleanups);
    // Embedded mode is "no DATABASE_URL"; the test's own database stands in for the embedded one.
    const config = parseConfig({ DATA_DIR: dataDir, SECRET_KEY, LOG_LEVEL: 'silent' });
    assert.equal(config.embedded, true);
    const result = await bootstrapAdmin(database.db, config);
    assert.ok(result);
    assert.equal(result.email, GENERATED_ADMIN_EMAIL);
    assert.ok(
      result.generatedPassword && result.generatedPassword.length >= 16,
      'a strong password is generated',
    );

    const { users, organizations } = await everyone(database);
    assert.equal(users.length, 1);
    assert.equal(users[0]?.role_id, ROLE_IDS.PLATFORM_ADMIN);
    assert.deepEqual(
      organizations.map((o) => o.name),
      ['Platform'],
    );

    const app = await buildApp(createServiceContext(config, database.db, createLogger('silent')));
    try {
      const login = await app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: result.email, password: result.generatedPassword },
      });
      assert.equal(login.statusCode, 200, login.body);
      assert.equal(login.json().user.role_id, ROLE_IDS.PLATFORM_ADMIN);
    } finally {
      await app.close();
    }
  });

  it('generates a different password on every fresh embedded database', async () => {
    const config = parseConfig({ DATA_DIR: dataDir, SECRET_KEY, LOG_LEVEL: 'silent' });
    const a = await bootstrapAdmin((await emptyDatabase(cleanups)).database.db, config);
    const b = await bootstrapAdmin((await emptyDatabase(cleanups)).database.db, config);
    assert.ok(a?.generatedPassword && b?.generatedPassword);
    assert.notEqual(a.generatedPassword, b.generatedPassword);
  });

  it('creates nothing with a DATABASE_URL and no BOOTSTRAP_* variables', async () => {
    const { url, database } = await emptyDatabase(cleanups);
    const result = await bootstrapAdmin(database.db, externalConfig(url));
    assert.equal(result, undefined);
    const { users, organizations } = await everyone(database);
    assert.equal(users.length, 0);
    assert.equal(organizations.length, 0);
  });
});
