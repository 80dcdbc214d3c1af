import type { Deps } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { TransactionRow, TransactionType } from '../../../db/schema.ts';
import { handleJob } from '../../../jobs/job.ts';
import { transactionSettledJob } from './transactions.jobs.ts';
import { findTransaction } from './transactions.repository.ts';

/** What a module does when a transaction it queued settles (COMPLETED or CANCELLED). */
export type SettlementHandler = (db: Executor, deps: Deps, transaction: TransactionRow) => Promise<void>;

/**
 * Every transaction type with its handlers (src/wiring/settlement.ts), an empty list where nothing
 * follows from the chain: a new transaction type that nobody decided about fails compilation.
 */
export type SettlementHandlers = { readonly [T in TransactionType]: readonly SettlementHandler[] };

export const transactionSettledTask = handleJob(transactionSettledJob, async (payload, _helpers, ctx) => {
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
});
