import { classifyRpcError } from '../../../chain/rpc.ts';
import type { Deps } from '../../../context.ts';
import type { Tx } from '../../../db/executor.ts';
import { mapLimit } from '../../../lib/concurrency.ts';
import type { Pair, PassContext } from './relayer-pass.ts';
import { RPC_CONCURRENCY } from './relayer-pass.ts';
import * as batches from './transaction-batches.repository.ts';
import type { PendingTransaction } from './transaction-lifecycle.ts';
import * as repo from './transactions.repository.ts';

/*
 * Batches of deliveries (the port `batches`; how records join them: token-flow-batch-calls.ts).
 * Before promotion (relayer-send.ts), a pass closes the sender's open batches that are due, and
 * a closed batch whose gas estimate reverts has the entries that revert alone taken out.
 */

/**
 * Closes the sender's due batches (full, or open for the network's `batch.windowMs`), as many as
 * there is room for in flight: while the wallet is busy, a batch stays open and goes on filling.
 * Answers the ids of batches left with no record (to cancel).
 */
export async function closeDueBatches(ctx: PassContext, pair: Pair): Promise<string[]> {
  const { maxConcurrentTxs, batch } = pair.network.config;
  const due = await batches.dueBatches(
    ctx.db,
    pair.network.id,
    pair.address,
    batch.windowMs,
    maxConcurrentTxs,
  );
  if (due.length === 0) return [];
  const room = maxConcurrentTxs - (await batches.countCommitted(ctx.db, pair.network.id, pair.address));
  const empty: string[] = [];
  for (const { id } of due.slice(0, Math.max(room, 0))) {
    if ((await ctx.withLease(pair, (tx) => closeBatch(tx, ctx.deps, id))) === 'EMPTY') empty.push(id);
  }
  return empty;
}

/**
 * Closes one open batch in the caller's database transaction: its row locked (so its joiners'
 * records are committed), the calldata composed from its records (the port `batches`) written,
 * and no longer open. EMPTY when it carries no record; undefined when it was closed already.
 */
export async function closeBatch(tx: Tx, deps: Deps, id: string): Promise<'CLOSED' | 'EMPTY' | undefined> {
  const row = await batches.lockOpenBatch(tx, id);
  if (!row) return undefined;
  const composed = await deps.ports.batches.compose(tx, deps, row);
  await batches.writeBatch(tx, id, { ...(composed ?? { data: '0x', size: 0 }), open: false });
  return composed ? 'CLOSED' : 'EMPTY';
}

export type Isolation =
  /** Entries that revert alone were taken out: estimate the batch again. */
  | 'DROPPED'
  /** An entry could not be checked now (the node failed): try again later. */
  | 'RETRY'
  /** No entry reverts alone (they revert together) or none is left: the batch fails as a whole. */
  | 'FAILED';

/**
 * A closed batch whose estimate reverts: each entry is estimated alone (outside any lock), and
 * those that revert alone are taken out of the batch (their records FAILED with the reason, their
 * owners told), which is composed again without them, in one database transaction that locks it.
 */
export async function isolateReverting(
  ctx: PassContext,
  pair: Pair,
  pending: PendingTransaction,
): Promise<Isolation> {
  const row = await repo.findTransaction(ctx.db, pending.id);
  if (row?.state !== 'PENDING' || row.batch_open || row.batch_key === null) return 'FAILED';
  const entries = await ctx.deps.ports.batches.entries(ctx.db, ctx.deps, row);
  const outcomes = await mapLimit(entries, RPC_CONCURRENCY, async (entry) => {
    try {
      await pair.client.estimateGas({
        from: pair.address,
        to: row.to_address as `0x${string}`,
        data: entry.data as `0x${string}`,
        value: 0n,
      });
      return undefined;
    } catch (error) {
      return classifyRpcError(error);
    }
  });
  if (outcomes.some((o) => o !== undefined && o.kind !== 'deterministic')) return 'RETRY';
  const byReason = new Map<string, string[]>();
  entries.forEach((entry, i) => {
    const outcome = outcomes[i];
    if (outcome === undefined) return;
    byReason.set(outcome.reason, [...(byReason.get(outcome.reason) ?? []), entry.recordId]);
  });
  if (byReason.size === 0) return 'FAILED';
  const failures = [...byReason].map(([reason, recordIds]) => ({ reason, recordIds }));
  return ctx.withLease(pair, async (tx) => {
    const locked = await repo.findTransactionForUpdate(tx, row.id);
    if (locked?.state !== 'PENDING') return 'FAILED';
    const composed = await ctx.deps.ports.batches.drop(tx, ctx.deps, locked, failures);
    if (!composed) return 'FAILED';
    await batches.writeBatch(tx, row.id, { ...composed, open: false });
    ctx.log.warn({ id: row.id, failures }, 'deliveries taken out of a batch that reverted with them');
    return 'DROPPED';
  });
}
