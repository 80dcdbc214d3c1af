import type { Task } from 'graphile-worker';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database, Executor } from '../../db/database.ts';
import type { TransactionRow, TransactionType } from '../../db/schema.ts';
import { findTransaction } from './transactions.repository.ts';

/** What a module does when a transaction it queued settles (COMPLETED or CANCELLED). */
export type SettlementHandler = (db: Executor, transaction: TransactionRow) => Promise<void>;
export type SettlementHandlers = Partial<Record<TransactionType, SettlementHandler[]>>;

/**
 * Job queued by the relayer in the same database transaction that settles a row; it re-reads the
 * row and runs the handlers of its type (deployments, mint requests…) in one transaction, so a
 * retried job never applies an outcome twice as long as handlers check the state they move.
 */
export function transactionSettledTask(
  db: Kysely<Database>,
  handlers: SettlementHandlers,
  logger: Logger,
): Task {
  return async (payload) => {
    const id = (payload as { transaction_id?: unknown }).transaction_id;
    if (typeof id !== 'string') return;
    await db.transaction().execute(async (tx) => {
      const row = await findTransaction(tx, id);
      if (!row || (row.state !== 'COMPLETED' && row.state !== 'CANCELLED')) return;
      for (const handle of handlers[row.type] ?? []) await handle(tx, row);
      logger.debug(
        { id, type: row.type, state: row.state, status: row.on_chain_status },
        'transaction settled',
      );
    });
  };
}
