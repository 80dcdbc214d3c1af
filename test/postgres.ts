import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';

/**
 * The PostgreSQL server tests run against: TEST_POSTGRES_URL, else the machine's own on
 * 127.0.0.1:5432 when it answers, else an embedded one started for this run.
 */
export async function findTestServer(
  log: (msg: string) => void,
): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  const candidates = [process.env.TEST_POSTGRES_URL, 'postgres://postgres@127.0.0.1:5432/postgres'].filter(
    (u): u is string => typeof u === 'string' && u.length > 0,
  );
  // TEST_POSTGRES=embedded forces the embedded server, to check the fallback on a machine that has one.
  const forceEmbedded = process.env.TEST_POSTGRES === 'embedded';
  for (const url of forceEmbedded ? [] : candidates) {
    if (await answers(url)) return { adminUrl: url, stop: async () => {} };
  }
  log('no PostgreSQL on 127.0.0.1:5432: starting an embedded one for the tests');
  // A directory of its own: a file run alone may start several of these at once.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tis-test-postgres-'));
  const embedded = await startEmbeddedPostgres(dataDir, { info: log, debug: () => {} });
  const adminUrl = embedded.url.replace(/\/[^/]+$/, '/postgres');
  return {
    adminUrl,
    stop: async () => {
      await embedded.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
