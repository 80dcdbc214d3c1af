import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** Anything that runs queries: the pool-backed handle or an open transaction. */
export type Executor = Kysely<Database>;

/**
 * An open transaction: what a function that locks rows takes, since a lock taken on the pool
 * would end with its own statement.
 */
export type Tx = Transaction<Database>;
