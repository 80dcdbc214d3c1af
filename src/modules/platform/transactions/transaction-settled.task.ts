import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { TransactionRow, TransactionType } from '../../../db/schema.ts';
import { defineTask, JobUuid } from '../../../jobs/task.ts';
import { findTransaction } from './transactions.repository.ts';

/** What a module does when a transaction it queued settles (COMPLETED or CANCELLED). */
export type SettlementHandler = (db: Executor, deps: Deps, transaction: TransactionRow) => Promise<void>;

/**
 * Every transaction type with its handlers (src/wiring/settlement.ts), an empty list where nothing
 * follows from the chain: a new transaction type that nobody decided about fails compilation.
 */
export type SettlementHandlers = { readonly [T in TransactionType]: readonly SettlementHandler[] };

/**
 * Job queued by the relayer in the same database transaction that settles a row; it re-reads the
 * row and runs the handlers of its type (deployments, mint requests…) in one transaction, so a
 * retried job never applies an outcome twice as long as handlers check the state they move.
 */
export const transactionSettledTask = defineTask({
  name: 'transaction_settled',
  payload: Type.Object({ transaction_id: JobUuid }),
  async handler(payload, _helpers, ctx) {
    const id = payload.transaction_id;
    // Loaded when a job runs, not with this module: src/wiring/settlement.ts reaches every module's
    // services, and they reach this module (the relayer enqueues this task), an import cycle.
    const { settlementHandlers } = await import('../../../wiring/settlement.ts');
    await ctx.db.transaction().execute(async (tx) => {
      const row = await findTransaction(tx, id);
      if (!row || (row.state !== 'COMPLETED' && row.state !== 'CANCELLED')) return;
      for (const handle of settlementHandlers[row.type]) await handle(tx, ctx, row);
      ctx.logger.debug(
        { id, type: row.type, state: row.state, status: row.on_chain_status },
        'transaction settled',
      );
    });
  },
});
