import { sql } from 'kysely';
import { classifyRpcError } from '../../../chain/rpc.ts';
import { assertNever } from '../../../lib/assert-never.ts';
import { mapLimit } from '../../../lib/concurrency.ts';
import { requestFunding } from './auto-fund.ts';
import { closeDueBatches, isolateReverting } from './relayer-batches.ts';
import { bump, renonce } from './relayer-monitor.ts';
import {
  findForUpdate,
  LeaseLost,
  live,
  type Pair,
  type PassContext,
  passFees,
  RPC_CONCURRENCY,
} from './relayer-pass.ts';
import { confirmedNonce, findReceipt } from './relayer-receipts.ts';
import { queueGapFill } from './relayer-reconcile.ts';
import { signAndQueueAll } from './relayer-sign.ts';
import { lifecycleIn, type PendingTransaction, type QueuedTransaction } from './transaction-lifecycle.ts';
import * as repo from './transactions.repository.ts';
import { emitSettledEvent } from './transactions.service.ts';

/*
 * Steps 3 and 4 of a relayer pass (relayer.ts): broadcast QUEUED rows (the stored raw bytes: a
 * crash between signing and sending re-sends the same transaction, never a second one), then
 * promote PENDING rows up to `maxConcurrentTxs` in flight: close the batches that are due
 * (relayer-batches.ts), estimate gas, then in one database transaction take the nonce, sign,
 * store the raw bytes and move the row to QUEUED.
 */

const GAS_MARGIN_PERCENT = 20n;
const TRANSIENT_BACKOFF_MS = 1_000;
const FUNDS_BACKOFF_MS = 5_000;
/** Rows promoted (nonce, sign, store) in one database transaction. */
const PROMOTE_BATCH = 200;

// 3. Broadcast -------------------------------------------------------------------------------

export async function broadcastQueued(ctx: PassContext, pair: Pair): Promise<void> {
  const due = await live(ctx, pair, 'QUEUED', 5000);
  if (due.length === 0) return;
  const head = await pair.client.blockNumber();
  // Sent concurrently: a node keeps a higher nonce waiting until the lower one arrives.
  const failures: { row: QueuedTransaction; error: unknown }[] = [];
  const sent: string[] = [];
  await mapLimit(due, RPC_CONCURRENCY, async (row) => {
    try {
      await pair.client.sendRawTransaction(row.raw);
      sent.push(row.id);
    } catch (error) {
      failures.push({ row, error });
    }
  });
  await markSent(ctx, pair, sent, head);
  for (const { row, error } of failures.sort((a, b) => Number(a.row.nonce - b.row.nonce))) {
    await onBroadcastError(ctx, pair, row, error, head).catch((failure: unknown) => {
      if (failure instanceof LeaseLost) throw failure;
      ctx.log.debug({ id: row.id, err: failure }, 'handling a broadcast error failed; next pass');
    });
  }
}

async function markSubmitted(ctx: PassContext, pair: Pair, id: string, head: bigint): Promise<void> {
  await markSent(ctx, pair, [id], head);
}

/**
 * QUEUED → SUBMITTED after a broadcast. Its commit does not wait for the disk flush: a database
 * crash that loses it leaves the rows QUEUED, and their stored bytes are sent again (the same
 * transaction), so nothing depends on it being durable.
 */
async function markSent(ctx: PassContext, pair: Pair, ids: string[], head: bigint): Promise<void> {
  if (ids.length === 0) return;
  await ctx.withLease(pair, async (tx) => {
    await sql`SET LOCAL synchronous_commit = off`.execute(tx);
    await repo.markSubmitted(tx, ids, head);
  });
}

async function onBroadcastError(
  ctx: PassContext,
  pair: Pair,
  row: QueuedTransaction,
  error: unknown,
  head: bigint,
): Promise<void> {
  const { kind, reason } = classifyRpcError(error);
  switch (kind) {
    case 'ambiguous': {
      // The chain may have it already: known to the node, or the nonce is taken.
      const minedNonce = await confirmedNonce(pair, await pair.client.blockNumber());
      if (await findReceipt(ctx, pair, row.id)) return markSubmitted(ctx, pair, row.id, head);
      if (minedNonce > row.nonce) return renonce(ctx, pair, row, minedNonce);
      return markSubmitted(ctx, pair, row.id, head);
    }
    case 'underpriced':
      return bump(ctx, pair, row, head);
    case 'funds':
      await requestFunding(ctx.db, pair.network, pair.wallet);
      return backoff(ctx, pair, row.id, reason, FUNDS_BACKOFF_MS);
    case 'deterministic':
      return cancel(ctx, pair, row.id, reason);
    case 'transient':
      return backoff(ctx, pair, row.id, reason, TRANSIENT_BACKOFF_MS);
  }
}

async function backoff(ctx: PassContext, pair: Pair, id: string, reason: string, ms: number): Promise<void> {
  await ctx.withLease(pair, (tx) =>
    repo.updateTransaction(tx, id, { last_error: reason, next_attempt_at: new Date(Date.now() + ms) }),
  );
}

/** Ends a transaction that can never succeed; a nonce it held is filled by a no-op. */
async function cancel(ctx: PassContext, pair: Pair, id: string, reason: string): Promise<void> {
  // A QUEUED row's nonce is filled at the market's fees, asked before the lock. Only this
  // relayer, holding the lease, moves the row out of PENDING: it is QUEUED now or never here.
  const seen = await repo.findTransaction(ctx.db, id);
  const fees = seen?.state === 'QUEUED' ? await passFees(pair) : undefined;
  await ctx.withLease(pair, async (tx) => {
    const current = await findForUpdate(tx, id);
    if (current === undefined) return;
    switch (current.state) {
      case 'PENDING':
      case 'QUEUED':
        break;
      // Sent, or settled already: the chain decides (or decided).
      case 'SUBMITTED':
      case 'COMPLETED':
      case 'CANCELLED':
        return;
      default:
        return assertNever(current, 'transaction state');
    }
    const settled = await repo.updateTransaction(tx, id, {
      state: 'CANCELLED',
      failure_reason: reason,
      completed_at: new Date(),
    });
    await repo.queueSettledJob(tx, current);
    await emitSettledEvent(tx, settled);
    if (current.state === 'QUEUED' && current.type !== 'NONCE_GAP_FILL') {
      if (fees === undefined) throw new Error(`transaction ${id} was queued while it was cancelled`);
      await queueGapFill(tx, pair, current.nonce, fees);
    }
  });
  ctx.log.warn({ id, reason }, 'transaction cancelled');
}

// 4. Promote ---------------------------------------------------------------------------------

export async function promote(ctx: PassContext, pair: Pair): Promise<void> {
  for (const id of await closeDueBatches(ctx, pair))
    await cancel(ctx, pair, id, 'no delivery left in the batch');
  const inFlight = await repo.countInFlight(ctx.db, pair.network.id, pair.address);
  const room = Math.min(pair.network.config.maxConcurrentTxs - inFlight, PROMOTE_BATCH);
  if (room <= 0) return;
  const pending = await live(ctx, pair, 'PENDING', room);
  if (pending.length === 0) return;
  const fees = await passFees(pair);
  const gas = await mapLimit(pending, RPC_CONCURRENCY, (row) => gasFor(ctx, pair, row));
  const ready = pending.filter((_, i) => gas[i] !== undefined);
  if (ready.length === 0) return;
  const gasById = new Map(pending.map((row, i) => [row.id, gas[i]]));
  // The wallet's first transaction on this network starts at the node's pending nonce: asked
  // before the wallet's lease and nonce row are locked.
  const firstNonce =
    (await repo.findNextNonce(ctx.db, pair.network.id, pair.address)) !== undefined
      ? undefined
      : BigInt(await pair.client.nonce(pair.address, 'pending'));
  // One database transaction takes the nonces of the whole batch, in creation order, and stores
  // every signed transaction before any is broadcast.
  const promoted = await ctx.withLease(pair, async (tx) => {
    const rows = (
      await repo.lockPending(
        tx,
        ready.map((r) => r.id),
      )
    ).map((row) => lifecycleIn(row, ['PENDING']));
    if (rows.length === 0) return 0;
    let nonce = await repo.findNextNonceForUpdate(tx, pair.network.id, pair.address);
    if (nonce === undefined) {
      if (firstNonce === undefined) throw new Error(`the nonce row of ${pair.address} went missing`);
      await repo.raiseNextNonce(tx, pair.network.id, pair.address, firstNonce);
      nonce = (await repo.findNextNonceForUpdate(tx, pair.network.id, pair.address))!;
    }
    await signAndQueueAll(
      tx,
      pair,
      rows.map((row, i) => ({ row, nonce: nonce + BigInt(i), gas: gasById.get(row.id)! })),
      fees,
    );
    return rows.length;
  });
  if (promoted > 0) await broadcastQueued(ctx, pair);
}

/** Gas limit of a row (estimated once, with a margin); undefined when it cannot be sent now. */
async function gasFor(ctx: PassContext, pair: Pair, row: PendingTransaction): Promise<bigint | undefined> {
  if (row.gasLimit !== null) return row.gasLimit;
  try {
    const estimate = await pair.client.estimateGas({
      from: pair.address,
      to: row.to,
      data: row.data,
      value: row.value,
    });
    return (estimate * (100n + GAS_MARGIN_PERCENT)) / 100n;
  } catch (error) {
    const { kind, reason } = classifyRpcError(error);
    if (kind === 'funds') {
      await requestFunding(ctx.db, pair.network, pair.wallet);
      await backoff(ctx, pair, row.id, reason, FUNDS_BACKOFF_MS);
    } else if (kind === 'deterministic') {
      // A batch with an entry that reverts alone goes on without it; one reverting as a whole fails.
      const isolation =
        row.batch !== null && row.batch.size > 1 ? await isolateReverting(ctx, pair, row) : 'FAILED';
      if (isolation === 'FAILED') await cancel(ctx, pair, row.id, reason);
      else if (isolation === 'RETRY') await backoff(ctx, pair, row.id, reason, TRANSIENT_BACKOFF_MS);
    } else {
      await backoff(ctx, pair, row.id, reason, TRANSIENT_BACKOFF_MS);
    }
    return undefined;
  }
}
