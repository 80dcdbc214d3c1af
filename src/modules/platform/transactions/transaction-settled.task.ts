import type { Kysely } from 'kysely';
import type { Deps } from '../../../context.ts';
import type { Database, TransactionRow } from '../../../db/schema.ts';
import { handleJob } from '../../../jobs/job.ts';
import { transactionSettledJob } from './transactions.jobs.ts';
import { findTransaction } from './transactions.repository.ts';

function isSettled(row: TransactionRow | undefined): row is TransactionRow {
  return row?.state === 'COMPLETED' || row?.state === 'CANCELLED';
}

/**
 * What follows a settled transaction (COMPLETED or CANCELLED): the handler of its type in the
 * port `settlement` reads what it needs from outside first, with no database transaction open,
 * then settles in one transaction that reads the row again. Safe to run again: handlers act only
 * on the state they find still open.
 */
export async function settleTransaction(db: Kysely<Database>, deps: Deps, id: string): Promise<void> {
  const seen = await findTransaction(db, id);
  if (!isSettled(seen)) return;
  const handler = deps.ports.settlement[seen.type];
  if (!handler) return;
  const reading = handler.read ? await handler.read(db, deps, seen) : undefined;
  await db.transaction().execute(async (tx) => {
    const row = await findTransaction(tx, id);
    if (!isSettled(row)) return;
    await handler.settle(tx, deps, row, reading);
    deps.logger.debug(
      { id, type: row.type, state: row.state, status: row.on_chain_status },
      'transaction settled',
    );
  });
}

export const transactionSettledTask = handleJob(transactionSettledJob, (payload, _helpers, ctx) =>
  settleTransaction(ctx.db, ctx, payload.transaction_id),
);
