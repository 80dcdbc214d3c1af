import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Tx } from './executor.ts';
import { executePrepared, PreparingClient } from './prepared.ts';
import type { Database } from './schema.ts';

export type { Database } from './schema.ts';

// int8 and numeric come back as strings (Uint256 values must never pass through a JS number).
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly pool: pg.Pool;
  destroy(): Promise<void>;
}

export function createDatabase(connectionString: string, options: { max?: number } = {}): DatabaseHandle {
  // A request waits at most 10 s for a connection, then fails as 503 instead of hanging.
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: 10_000,
    // Hot queries' SQL is prepared on each connection (src/db/prepared.ts).
    Client: PreparingClient,
  });
  // A client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    // Kysely's destroy ends the pool it was given.
    destroy: () => db.destroy(),
  };
}

/**
 * `work` in a transaction whose commit releases its row locks without waiting for the disk, then
 * a wait until that commit is on disk before returning. For work that queues on one hot row (a
 * listing's hold): the next transaction waiting on the row goes on while this one's commit is
 * flushed, and concurrent flushes are grouped into one write instead of one per transaction.
 *
 * It is as durable as a plain commit for everyone outside the database: nothing may be answered
 * or sent on the strength of `work` before this returns. A crash of the database in between loses
 * only a transaction nobody outside was told of; any other transaction that saw its effects and
 * committed durably made it durable too, the log being one sequence.
 */
export async function transactionFlushedAfterUnlock<T>(
  db: Kysely<Database>,
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  const result = await db.transaction().execute(async (tx) => {
    await sql`SET LOCAL synchronous_commit = off`.execute(tx);
    return work(tx);
  });
  await logFlushed(db);
  return result;
}

/**
 * Selected in a statement run alone, outside a transaction, its commit does not wait for the disk
 * (set_config(…, true) lasts until the end of the statement's own transaction: its commit). Such a
 * statement is followed by logFlushed before anything is answered on its strength, as
 * transactionFlushedAfterUnlock does for a transaction.
 */
export const ASYNC_COMMIT = sql<string>`set_config('synchronous_commit', 'off', true)`;

/**
 * Returns once the log is on disk past every commit made before the call: the synchronous commit
 * of a transactional log message (a commit that wrote nothing would not wait).
 */
export async function logFlushed(db: Kysely<Database>): Promise<void> {
  await executePrepared(db, sql`SELECT pg_logical_emit_message(true, 'flush', '')`);
}
