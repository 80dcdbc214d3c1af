import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { type MigrationReport, migrate, pendingMigrations } from '../src/db/migrator.ts';
import { findTestServer, withDatabase } from './postgres.ts';

const MIGRATIONS = readdirSync(path.resolve(import.meta.dirname, '../migrations'))
  .filter((f) => /^\d{4}_[\w-]+\.ts$/.test(f))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();

/** Instances starting together on a new database (a rolling deploy, ROLE=api beside ROLE=worker). */
describe('two migrators at once on a brand-new database', () => {
  let adminUrl: string;
  let stopServer = async () => {};
  let name: string;
  let handles: DatabaseHandle[] = [];
  let reports: MigrationReport[];
  before(async () => {
    const fromRun = process.env.TEST_POSTGRES_ADMIN_URL;
    if (fromRun) adminUrl = fromRun;
    else ({ adminUrl, stop: stopServer } = await findTestServer(() => {}));
    // Created here, empty: not a clone of the run's migrated template.
    name = `tis_migrate_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    const url = withDatabase(adminUrl, name);
    // Separate pools, as two processes would have.
    handles = [createDatabase(url, { max: 2 }), createDatabase(url, { max: 2 })];
    reports = await Promise.all(handles.map((h) => migrate(h.db, h.pool)));
  });
  after(async () => {
    for (const handle of handles) await handle.destroy();
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await stopServer();
  });

  async function adminQuery(text: string): Promise<void> {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  }

  const query = <R extends pg.QueryResultRow>(text: string) => handles[0]!.pool.query<R>(text);

  it('both succeed, and between them apply every migration exactly once', () => {
    assert.ok(MIGRATIONS.length > 0);
    assert.equal(reports.length, 2);
    // Whichever took the lock applied everything; the other then found nothing left to do.
    assert.deepEqual(reports.flatMap((r) => r.applied).sort(), MIGRATIONS);
  });

  it('records each migration once in kysely_migration', async () => {
    const { rows } = await query<{ name: string; n: string }>(
      'SELECT name, count(*) AS n FROM kysely_migration GROUP BY name ORDER BY name',
    );
    assert.deepEqual(
      rows.map((r) => [r.name, r.n]),
      MIGRATIONS.map((m) => [m, '1']),
    );
    assert.deepEqual(await pendingMigrations(handles[0]!.db), []);
  });

  it('installs the job queue (graphile_worker schema and its migrations)', async () => {
    const schemas = await query(
      "SELECT 1 FROM information_schema.schemata WHERE schema_name = 'graphile_worker'",
    );
    assert.equal(schemas.rowCount, 1, 'the graphile_worker schema is missing');
    const applied = await query<{ n: string }>('SELECT count(*) AS n FROM graphile_worker.migrations');
    assert.ok(Number(applied.rows[0]!.n) > 0, 'the job queue migrations were not applied');
  });

  it('leaves nothing for a third migrator to do', async () => {
    const again = await migrate(handles[1]!.db, handles[1]!.pool);
    assert.deepEqual(again.applied, []);
    const { rows } = await query<{ n: string }>('SELECT count(*) AS n FROM kysely_migration');
    assert.equal(Number(rows[0]!.n), MIGRATIONS.length);
  });
});
