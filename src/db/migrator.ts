import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Logger, runMigrations as runJobQueueMigrations } from 'graphile-worker';
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type pg from 'pg';
import { COMPILED, ROOT } from '../lib/paths.ts';
import type { Database } from './schema.ts';

// The sources' migrations/*.ts, or their build (dist/migrations/*.js, `npm run build`) when the
// service runs compiled: a migration's name is its file's without the extension either way.
const MIGRATIONS_DIR = path.join(ROOT, COMPILED ? 'dist/migrations' : 'migrations');
const MIGRATION_FILE = COMPILED ? /^\d{4}_[\w-]+\.js$/ : /^\d{4}_[\w-]+\.ts$/;
// Session-level advisory lock held while any instance migrates: a second instance starting at
// the same time waits, then finds nothing left to do.
const MIGRATION_LOCK_KEY = 7_301_955_211;

class FolderMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await fs.readdir(MIGRATIONS_DIR)).filter((f) => MIGRATION_FILE.test(f)).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      const module = (await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href)) as Migration;
      migrations[file.replace(/\.[jt]s$/, '')] = { up: module.up };
    }
    return migrations;
  }
}

export interface MigrationReport {
  applied: string[];
}

/** Applies pending migrations (ours, then the job queue's), one instance at a time. */
export async function migrate(db: Kysely<Database>, pool: pg.Pool): Promise<MigrationReport> {
  return db.connection().execute(async (conn) => {
    await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(conn);
    try {
      const migrator = new Migrator({ db: conn, provider: new FolderMigrationProvider() });
      const { error, results } = await migrator.migrateToLatest();
      if (error) throw error instanceof Error ? error : new Error(String(error));
      await runJobQueueMigrations({ pgPool: pool, logger: new Logger(() => () => {}) });
      return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
    } finally {
      await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(conn);
    }
  });
}

/** True when every migration in the folder has been applied (readiness). */
export async function pendingMigrations(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new FolderMigrationProvider() });
  const all = await migrator.getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
