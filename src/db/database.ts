import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

export type { Database } from './schema.ts';

/** Anything that runs queries: the pool-backed handle or an open transaction. */
export type Executor = Kysely<Database>;
export type Tx = Transaction<Database>;

// int8 and numeric come back as strings (Uint256 values must never pass through a JS number).
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly pool: pg.Pool;
  destroy(): Promise<void>;
}

export function createDatabase(connectionString: string, options: { max?: number } = {}): DatabaseHandle {
  // A request waits at most 10 s for a connection, then fails as 503 instead of hanging.
  const pool = new pg.Pool({ connectionString, max: options.max ?? 10, connectionTimeoutMillis: 10_000 });
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
