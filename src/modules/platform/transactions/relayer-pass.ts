import type { Logger } from 'pino';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { type Fees, marketFees } from '../../../chain/fees.ts';
import type { ChainClient, Receipt } from '../../../chain/rpc.ts';
import type { AppContext, Deps } from '../../../context.ts';
import type { Tx } from '../../../db/executor.ts';
import type { NetworkRow, WalletRow } from '../../../db/schema.ts';
import { assertNever } from '../../../lib/assert-never.ts';
import {
  lifecycleIn,
  lifecycleOf,
  type QueuedTransaction,
  type SubmittedTransaction,
  type TransactionIn,
  type TransactionLifecycle,
} from './transaction-lifecycle.ts';
import * as repo from './transactions.repository.ts';

/*
 * What the stages of a relayer pass share (relayer.ts runs them; relayer-reconcile.ts,
 * relayer-monitor.ts and relayer-send.ts hold them): the pair a pass drives, what a stage needs of
 * the Relayer running it (PassContext), and the reads every stage makes.
 */

export class LeaseLost extends Error {}

/** RPC calls in flight per wallet pass (receipts, broadcasts, estimates). */
export const RPC_CONCURRENCY = 16;

/** What a pass reads from a network once, whatever the number of its senders with work. */
export interface NetworkPass {
  /** Receipts of whole blocks, by number. */
  blocks: Map<bigint, Promise<Receipt[] | null>>;
  /** Market fees for the rows promoted in this pass. */
  fees?: Promise<Fees>;
}

/** The market fees of the pass, asked of the node once per pass (and never under a lock). */
export function passFees(pair: Pair): Promise<Fees> {
  const fees = pair.shared.fees ?? marketFees(pair.client, pair.network.config.gasStrategy);
  pair.shared.fees = fees;
  return fees;
}

export interface Pair {
  network: NetworkRow;
  address: Hex;
  epoch: string;
  /** When the lease was last taken or renewed (Date.now()). */
  renewedAt: number;
  client: ChainClient;
  wallet: WalletRow;
  account: PrivateKeyAccount;
  shared: NetworkPass;
}

/**
 * What the stages of a pass use of the Relayer running them: its database and logger, its leases
 * (every write goes through withLease), and the per-process state they read and write.
 */
export interface PassContext {
  readonly db: AppContext['db'];
  /** What the ports need (a batch's composition). */
  readonly deps: Deps;
  readonly log: Logger;
  /** The head a SUBMITTED row was last re-sent at (same bytes), by row id. */
  readonly rebroadcastAt: Map<string, bigint>;
  /** When a network's node last failed eth_getBlockReceipts. */
  readonly blockReceiptsFailedAt: Map<number, number>;
  /** The head block each sender's monitor last looked at in full, by `network:address`. */
  readonly monitoredHead: Map<string, bigint>;
  /** Renews the pair's lease once a third of it has gone by, or throws LeaseLost. */
  keepLease(pair: Pair): Promise<void>;
  /** Runs `fn` in a database transaction that holds the lease (fencing), or throws LeaseLost. */
  withLease<T>(pair: Pair, fn: (tx: Tx) => Promise<T>): Promise<T>;
}

// Reads ---------------------------------------------------------------------------------------

/** The sender's rows in `state` that are due, as their lifecycle variant. */
export async function live<S extends 'PENDING' | 'QUEUED' | 'SUBMITTED'>(
  ctx: PassContext,
  pair: Pair,
  state: S,
  limit: number,
): Promise<TransactionIn<S>[]> {
  const rows = await repo.liveTransactions(ctx.db, pair.network.id, pair.address, state, limit);
  return rows.map((row) => lifecycleIn(row, [state]));
}

export async function findForUpdate(tx: Tx, id: string) {
  const row = await repo.findTransactionForUpdate(tx, id);
  return row === undefined ? undefined : lifecycleOf(row);
}

/** QUEUED or SUBMITTED: signed with a nonce, not settled (a bump re-signs it, a renonce frees it). */
export function isSigned(
  transaction: TransactionLifecycle,
): transaction is QueuedTransaction | SubmittedTransaction {
  switch (transaction.state) {
    case 'QUEUED':
    case 'SUBMITTED':
      return true;
    case 'PENDING':
    case 'COMPLETED':
    case 'CANCELLED':
      return false;
    default:
      return assertNever(transaction, 'transaction state');
  }
}
