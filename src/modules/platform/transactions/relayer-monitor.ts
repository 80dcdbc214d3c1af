import type { Hex } from 'viem';
import { bumpedFees, marketFees } from '../../../chain/fees.ts';
import { classifyRpcError, type Receipt } from '../../../chain/rpc.ts';
import { mapLimit } from '../../../lib/concurrency.ts';
import {
  findForUpdate,
  isSigned,
  LeaseLost,
  live,
  type Pair,
  type PassContext,
  RPC_CONCURRENCY,
} from './relayer-pass.ts';
import { confirmedNonce, findReceipt, firstReceipt, receiptsInBlocks } from './relayer-receipts.ts';
import { feeColumns, sign } from './relayer-sign.ts';
import type { QueuedTransaction, SubmittedTransaction } from './transaction-lifecycle.ts';
import * as repo from './transactions.repository.ts';
import { emitSettledEvents } from './transactions.service.ts';

/*
 * Step 2 of a relayer pass (relayer.ts): monitor SUBMITTED rows: receipts of any signed version,
 * confirmations, reorgs, fee bumps after `txResubmitBlockCount` blocks, re-broadcasts of dropped
 * transactions, and rows whose nonce was consumed by another transaction (sent back to PENDING for
 * a new nonce). Bumps and renonces also follow broadcast errors (relayer-send.ts).
 */

export async function monitor(ctx: PassContext, pair: Pair): Promise<void> {
  const head = await pair.client.blockNumber();
  // Every decision below follows a new block (a receipt, a depth, a block without the row): at
  // the head the last full look was at, there is nothing new to see (passes come faster than
  // blocks). A reorg at the same height is seen with the next block.
  const key = `${pair.network.id}:${pair.address}`;
  if (ctx.monitoredHead.get(key) === head) return;
  const submitted = await live(ctx, pair, 'SUBMITTED', 5000);
  if (submitted.length === 0) {
    ctx.monitoredHead.set(key, head);
    return;
  }
  // The nonce is read BEFORE the receipts, as of the newest block `confirmations` deep: a row
  // whose nonce is below it and that has no receipt after that read was not mined by us, so
  // giving it a new nonce cannot send it twice. Not 'latest': a reorg between the two reads
  // would drop our transaction (back into the pool) after the nonce counted it.
  const minedNonce = await confirmedNonce(pair, head);
  // Rows above a nonce the node has not been given yet (QUEUED) cannot be mined whatever their
  // fees: they are neither bumped nor re-sent until that nonce is sent.
  const gap = await repo.lowestNonce(ctx.db, pair.network.id, pair.address, 'QUEUED');
  const hashes = await repo.attemptHashes(
    ctx.db,
    submitted.map((r) => r.id),
  );
  // Receipts of the blocks mined since the rows were sent, one call per block, read after the
  // nonce like the lookups below. A row found there needs no call of its own; a row not found is
  // looked up by hash only when "no receipt" would make this pass act on it (re-nonce, re-send,
  // bump, reorg), so such decisions rest on a lookup of the row's own hashes, as always.
  const inBlocks = await receiptsInBlocks(ctx, pair, submitted, head);
  // Rows are independent: a failed lookup leaves its row to the next pass, the others go on.
  const receipts = await mapLimit(submitted, RPC_CONCURRENCY, async (row) => {
    const rowHashes = hashes.get(row.id) ?? [];
    if (inBlocks) {
      for (const hash of rowHashes) {
        const receipt = inBlocks.get(hash.toLowerCase());
        if (receipt) return receipt;
      }
      if (!actsWithoutReceipt(ctx, pair, row, head, minedNonce, gap)) return undefined;
    }
    return firstReceipt(pair, rowHashes).catch((error: unknown) => {
      ctx.log.debug({ id: row.id, err: error }, 'receipt lookup failed; next pass');
      return undefined;
    });
  });
  const canonical = new Map<bigint, Promise<Hex | null>>();
  const blockHash = (number: bigint) => {
    let hash = canonical.get(number);
    if (!hash) {
      hash = pair.client.blockHash(number);
      canonical.set(number, hash);
    }
    return hash;
  };
  const completions: repo.Completion[] = [];
  await mapLimit(submitted, RPC_CONCURRENCY, async (row, i) => {
    const receipt = receipts[i];
    if (receipt === undefined) return;
    try {
      await ctx.keepLease(pair);
      const completion = await settle(
        ctx,
        pair,
        row,
        receipt,
        head,
        minedNonce,
        blockHash,
        gap !== undefined && row.nonce > gap,
      );
      if (completion) completions.push(completion);
    } catch (error) {
      if (error instanceof LeaseLost) throw error;
      ctx.log.debug({ id: row.id, err: error }, 'monitoring a transaction failed; next pass');
    }
  });
  await complete(ctx, pair, completions);
  ctx.monitoredHead.set(key, head);
}

/**
 * Settles the rows whose receipt is final, all in one database transaction: each row still
 * SUBMITTED moves to COMPLETED with its `transaction_settled` job and event.
 */
async function complete(ctx: PassContext, pair: Pair, completions: repo.Completion[]): Promise<void> {
  if (completions.length === 0) return;
  await ctx.withLease(pair, async (tx) => {
    const settled = await repo.completeSubmitted(tx, completions, new Date());
    await repo.queueSettledJobs(tx, settled);
    await emitSettledEvents(tx, settled);
  });
  for (const { id } of completions) ctx.rebroadcastAt.delete(id);
}

/** Whether a row with no receipt would be acted on by `settle` this pass (not just waited for). */
function actsWithoutReceipt(
  ctx: PassContext,
  pair: Pair,
  row: SubmittedTransaction,
  head: bigint,
  minedNonce: bigint,
  gap: bigint | undefined,
): boolean {
  if (row.mined !== null || minedNonce > row.nonce) return true;
  if (gap !== undefined && row.nonce > gap) return false;
  return (
    resubmitDue(pair, row, head) || (head > row.submittedBlock + 1n && ctx.rebroadcastAt.get(row.id) !== head)
  );
}

/** What one SUBMITTED row needs, given its receipt (null: none on chain). */
async function settle(
  ctx: PassContext,
  pair: Pair,
  row: SubmittedTransaction,
  receipt: Receipt | null,
  head: bigint,
  minedNonce: bigint,
  blockHash: (number: bigint) => Promise<Hex | null>,
  behindGap: boolean,
): Promise<repo.Completion | undefined> {
  if (receipt) {
    return onReceipt(ctx, pair, row, receipt, head, blockHash);
  }
  if (row.mined !== null) {
    // Mined once, gone now: a reorg dropped it. Record that and send the same bytes again.
    await ctx.withLease(pair, (tx) =>
      repo.updateTransaction(tx, row.id, {
        mined_block_number: null,
        mined_block_hash: null,
        on_chain_status: null,
        submitted_block: head.toString(),
      }),
    );
    ctx.log.warn({ id: row.id, hash: row.hash }, 'transaction dropped by a reorg; re-sending');
    await rebroadcast(ctx, pair, row.id, row.raw);
  } else if (minedNonce > row.nonce) {
    await renonce(ctx, pair, row, minedNonce);
  } else if (behindGap) {
    // Waits for the lower nonce to be sent.
  } else if (resubmitDue(pair, row, head)) {
    await bump(ctx, pair, row, head);
  } else if (head > row.submittedBlock + 1n && ctx.rebroadcastAt.get(row.id) !== head) {
    // Not mined after a block: the node may have dropped it (restart, lost send). Same bytes.
    ctx.rebroadcastAt.set(row.id, head);
    await rebroadcast(ctx, pair, row.id, row.raw);
  }
  return undefined;
}

async function onReceipt(
  ctx: PassContext,
  pair: Pair,
  row: SubmittedTransaction,
  receipt: Receipt,
  head: bigint,
  blockHash: (number: bigint) => Promise<Hex | null>,
): Promise<repo.Completion | undefined> {
  const status = receipt.status === 'success' ? 'SUCCESS' : 'FAILURE';
  const minedFields = {
    tx_hash: receipt.transactionHash,
    mined_block_number: receipt.blockNumber.toString(),
    mined_block_hash: receipt.blockHash,
    on_chain_status: status,
    gas_used: receipt.gasUsed.toString(),
    effective_gas_price: receipt.effectiveGasPrice.toString(),
    fee: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
    contract_address: receipt.contractAddress,
  };
  const depth = head - receipt.blockNumber + 1n;
  if (depth < BigInt(pair.network.config.confirmations)) {
    if (row.mined?.hash !== receipt.blockHash) {
      await ctx.withLease(pair, (tx) => repo.updateTransaction(tx, row.id, minedFields));
    }
    return undefined;
  }
  // Deep enough; final only if its block is still the canonical one at that height. The pass
  // settles its final rows together (complete).
  if ((await blockHash(receipt.blockNumber)) !== receipt.blockHash) return undefined;
  return {
    id: row.id,
    txHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    status,
    gasUsed: receipt.gasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
    contractAddress: receipt.contractAddress,
  };
}

function resubmitDue(pair: Pair, row: SubmittedTransaction, head: bigint): boolean {
  const blocks = pair.network.config.txResubmitBlockCount;
  return blocks !== null && head - row.submittedBlock >= BigInt(blocks);
}

/** The nonce went to another transaction (sent outside the service): queue again with a new one. */
export async function renonce(
  ctx: PassContext,
  pair: Pair,
  row: QueuedTransaction | SubmittedTransaction,
  minedNonce: bigint,
): Promise<void> {
  // Last look: a receipt of ours may have arrived since; then it is ours that used the nonce.
  if (await findReceipt(ctx, pair, row.id)) return;
  await ctx.withLease(pair, async (tx) => {
    const current = await findForUpdate(tx, row.id);
    if (current === undefined || !isSigned(current)) return;
    await repo.raiseNextNonce(tx, pair.network.id, pair.address, minedNonce);
    await repo.updateTransaction(tx, row.id, {
      state: 'PENDING',
      nonce: null,
      raw_tx: null,
      tx_hash: null,
      submitted_at: null,
      submitted_block: null,
      last_error: `nonce ${row.nonce} was used by another transaction of ${pair.address}; queued again`,
      next_attempt_at: new Date(),
    });
  });
  ctx.log.warn(
    { id: row.id, nonce: row.nonce.toString() },
    'nonce consumed outside the service; transaction re-queued',
  );
}

/** Re-signs with the same nonce and higher fees, and sends the new version. */
export async function bump(
  ctx: PassContext,
  pair: Pair,
  row: QueuedTransaction | SubmittedTransaction,
  head: bigint,
): Promise<void> {
  const market = await marketFees(pair.client, pair.network.config.gasStrategy);
  const next = bumpedFees(row.fees, market, pair.network.config.gasStrategy);
  if (!next) {
    ctx.log.warn({ id: row.id }, 'fees are at the gas strategy cap; waiting without resubmitting');
    await ctx.withLease(pair, (tx) =>
      repo.updateTransaction(tx, row.id, {
        submitted_block: head.toString(),
        last_error: `fees are at the gas strategy cap (maxFeePerGas ${pair.network.config.gasStrategy.maxFeePerGas} wei); waiting for lower fees or a higher cap`,
      }),
    );
    return;
  }
  const resigned = await ctx.withLease(pair, async (tx) => {
    const current = await findForUpdate(tx, row.id);
    if (current === undefined || !isSigned(current)) return undefined;
    const signed = await sign(pair, current, current.nonce, current.gasLimit, next);
    await repo.insertAttempt(tx, {
      transaction_id: row.id,
      tx_hash: signed.hash,
      raw_tx: signed.raw,
      nonce: current.nonce.toString(),
      ...feeColumns(next),
    });
    const attempt = current.attempts + 1;
    await repo.updateTransaction(tx, row.id, {
      raw_tx: signed.raw,
      tx_hash: signed.hash,
      ...feeColumns(next),
      attempts: attempt,
      submitted_block: head.toString(),
    });
    return { attempt, raw: signed.raw };
  });
  if (resigned) {
    ctx.log.info({ id: row.id, attempt: resigned.attempt }, 'resubmitting with higher fees');
    await rebroadcast(ctx, pair, row.id, resigned.raw);
  }
}

async function rebroadcast(ctx: PassContext, pair: Pair, id: string, raw: Hex): Promise<void> {
  try {
    await pair.client.sendRawTransaction(raw);
  } catch (error) {
    const { kind, reason } = classifyRpcError(error);
    // Already known, or the nonce already used: the monitor settles it from the chain.
    if (kind !== 'ambiguous') ctx.log.debug({ id, kind, reason }, 're-broadcast refused');
  }
}
