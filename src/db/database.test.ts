import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase } from '../../test/harness.ts';
import { createDatabase, type DatabaseHandle, transactionFlushedAfterUnlock } from './database.ts';

describe('transactionFlushedAfterUnlock', () => {
  let database: DatabaseHandle;
  let drop: () => Promise<void>;
  before(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    database = createDatabase(created.url, { max: 1 });
  });
  after(async () => {
    await database.destroy();
    await drop();
  });

  it('commits without waiting for the disk, and returns only once the log is on disk past its work', async () => {
    const seen = await transactionFlushedAfterUnlock(database.db, async (tx) => {
      await sql`CREATE TABLE flushed (n int)`.execute(tx);
      await sql`INSERT INTO flushed VALUES (1)`.execute(tx);
      const { rows } = await sql<{ mode: string; lsn: string }>`
        SELECT current_setting('synchronous_commit') AS mode, pg_current_wal_insert_lsn()::text AS lsn`.execute(
        tx,
      );
      return rows[0]!;
    });
    assert.equal(seen.mode, 'off');
    const { rows } = await sql<{ flushed: boolean }>`
      SELECT pg_current_wal_flush_lsn() >= ${seen.lsn}::pg_lsn AS flushed`.execute(database.db);
    assert.equal(rows[0]!.flushed, true);
    const count = await sql<{ n: number }>`SELECT count(*)::int AS n FROM flushed`.execute(database.db);
    assert.equal(count.rows[0]!.n, 1);
  });

  it('rolls back and rethrows when its work fails, leaving the session synchronous', async () => {
    await assert.rejects(
      transactionFlushedAfterUnlock(database.db, async (tx) => {
        await sql`CREATE TABLE rolled_back (n int)`.execute(tx);
        throw new Error('work failed');
      }),
      /work failed/,
    );
    const { rows } = await sql<{ found: string | null; mode: string }>`
      SELECT to_regclass('rolled_back')::text AS found, current_setting('synchronous_commit') AS mode`.execute(
      database.db,
    );
    assert.deepEqual(rows[0], { found: null, mode: 'on' });
  });
});
