import { sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { TransactionRow } from '../../../db/schema.ts';

/*
 * Batch transactions (token flow deliveries to many recipients in one call): the rows records
 * join while open, and what the relayer reads and writes to close them (relayer-batches.ts).
 */

/**
 * Counts `size` more entries into an open batch of `key` with room for them, the oldest first, and
 * answers it; undefined when none has room. The row stays locked until the caller commits, so a
 * batch being joined is skipped by the others (they join another, or open one) and the relayer
 * closes it only once its joiners' records are committed.
 */
export async function joinOpenBatch(db: Tx, key: string, size: number): Promise<TransactionRow | undefined> {
  const result = await sql<TransactionRow>`
    UPDATE transactions SET batch_size = batch_size + ${size}, updated_at = now()
    WHERE id = (
      SELECT id FROM transactions
      WHERE batch_open AND batch_key = ${key} AND batch_size + ${size} <= batch_cap
      ORDER BY created_at, id LIMIT 1
      FOR UPDATE SKIP LOCKED
    )
    RETURNING *`.execute(db);
  return result.rows[0];
}

/** A sender's open batches due to close: full, or open for `windowMs` already; oldest first. */
export function dueBatches(
  db: Executor,
  networkId: number,
  from: string,
  windowMs: number,
  limit: number,
): Promise<TransactionRow[]> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('network_id', '=', networkId)
    .where('from_address', '=', from)
    .where('state', '=', 'PENDING')
    .where('batch_open', '=', true)
    .where((eb) =>
      eb.or([
        eb('batch_size', '>=', eb.ref('batch_cap')),
        eb('created_at', '<=', new Date(Date.now() - windowMs)),
      ]),
    )
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** An open batch, locked (waiting for its joiners to commit); undefined once it is closed. */
export function lockOpenBatch(db: Tx, id: string): Promise<TransactionRow | undefined> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', id)
    .where('batch_open', '=', true)
    .forUpdate()
    .executeTakeFirst();
}

/** A batch's calldata from the entries it carries; closed, it is sent as any PENDING row. */
export async function writeBatch(
  db: Tx,
  id: string,
  batch: { data: string; size: number; open: boolean },
): Promise<void> {
  await db
    .updateTable('transactions')
    .set({ data: batch.data, batch_size: batch.size, batch_open: batch.open, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** Rows that will take a nonce soon or hold one: closed PENDING rows, QUEUED and SUBMITTED. */
export function countCommitted(db: Executor, networkId: number, from: string): Promise<number> {
  return db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('network_id', '=', networkId)
    .where('from_address', '=', from)
    .where('state', 'in', ['PENDING', 'QUEUED', 'SUBMITTED'])
    .where('batch_open', '=', false)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}
