import { isHex } from 'viem';
import type { Receipt } from '../../../chain/rpc.ts';
import { mapLimit } from '../../../lib/concurrency.ts';
import { type Pair, type PassContext, RPC_CONCURRENCY } from './relayer-pass.ts';
import type { SubmittedTransaction } from './transaction-lifecycle.ts';
import * as repo from './transactions.repository.ts';

/*
 * What the relayer reads of the chain about its signed rows (relayer-monitor.ts, and
 * relayer-send.ts after an ambiguous broadcast error): receipts, by block or by hash, and the
 * wallet's confirmed nonce.
 */

/** Newest blocks whose receipts a pass reads (eth_getBlockReceipts), one call per block. */
const RECEIPT_BLOCKS = 16;
/**
 * Rows in flight per block read below which receipts are looked up one by one: a block's receipts
 * weigh far more than one receipt (every transaction of the block, with its logs; hosted nodes
 * bill them accordingly), so a wallet with a few transactions on a busy chain reads its own.
 */
const ROWS_PER_BLOCK_READ = 4;
/** After a node failed eth_getBlockReceipts, receipts are looked up one by one for this long. */
const BLOCK_RECEIPTS_OFF_MS = 60_000;

/**
 * Receipts (by lowercase hash) of the blocks the rows can have been mined in since they were
 * sent (the newest RECEIPT_BLOCKS at most), or undefined when the node cannot say or the rows are
 * too few to be worth the blocks: then every row is looked up by hash.
 */
export async function receiptsInBlocks(
  ctx: PassContext,
  pair: Pair,
  rows: SubmittedTransaction[],
  head: bigint,
): Promise<Map<string, Receipt> | undefined> {
  const failedAt = ctx.blockReceiptsFailedAt.get(pair.network.id);
  if (failedAt !== undefined && Date.now() - failedAt < BLOCK_RECEIPTS_OFF_MS) return undefined;
  let from = head + 1n;
  for (const row of rows) {
    // A broadcast is recorded with the head read before it: it is mined in a later block.
    const first = row.mined ? row.mined.number : row.submittedBlock + 1n;
    if (first < from) from = first;
  }
  if (from <= head - BigInt(RECEIPT_BLOCKS)) from = head - BigInt(RECEIPT_BLOCKS) + 1n;
  const numbers: bigint[] = [];
  for (let n = from; n <= head; n++) numbers.push(n);
  // Blocks another sender of the network read in this pass come free.
  const toRead = numbers.filter((n) => !pair.shared.blocks.has(n)).length;
  if (toRead * ROWS_PER_BLOCK_READ > rows.length) return undefined;
  const byHash = new Map<string, Receipt>();
  try {
    const blocks = await mapLimit(numbers, RPC_CONCURRENCY, (n) => {
      let receipts = pair.shared.blocks.get(n);
      if (!receipts) {
        receipts = pair.client.blockReceipts(n);
        pair.shared.blocks.set(n, receipts);
      }
      return receipts;
    });
    for (const receipts of blocks) {
      for (const receipt of receipts ?? []) byHash.set(receipt.transactionHash.toLowerCase(), receipt);
    }
  } catch (error) {
    ctx.blockReceiptsFailedAt.set(pair.network.id, Date.now());
    ctx.log.debug({ network: pair.network.id, err: error }, 'block receipts failed; receipts one by one');
    return undefined;
  }
  return byHash;
}

/** The wallet's nonce as of the newest block that is `confirmations` deep (final). */
export async function confirmedNonce(pair: Pair, head: bigint): Promise<bigint> {
  const depth = BigInt(Math.max(1, pair.network.config.confirmations)) - 1n;
  return BigInt(await pair.client.nonce(pair.address, head > depth ? head - depth : 0n));
}

/** The receipt of the first of a row's signed versions (stored hashes, newest first) that has one. */
export async function firstReceipt(pair: Pair, hashes: string[]): Promise<Receipt | null> {
  for (const hash of hashes) {
    if (!isHex(hash)) throw new Error(`a stored attempt hash is not hex: ${hash}`);
    const receipt = await pair.client.receipt(hash);
    if (receipt) return receipt;
  }
  return null;
}

export async function findReceipt(ctx: PassContext, pair: Pair, id: string): Promise<Receipt | null> {
  const hashes = await repo.attemptHashes(ctx.db, [id]);
  return firstReceipt(pair, hashes.get(id) ?? []);
}
