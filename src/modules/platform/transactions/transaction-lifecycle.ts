import { type Hex, isHex } from 'viem';
import type { Fees } from '../../../chain/fees.ts';
import type { TransactionRow, TransactionState, TransactionType } from '../../../db/schema.ts';

/**
 * The lifecycle of a transaction (docs/api.md#states) as a tagged union: each state carries exactly the
 * fields it guarantees, with their real types. The `transactions_lifecycle` CHECK
 * (migrations/0004) holds the same invariants in the database; `lifecycleOf` is the one way from
 * a row to a variant, and throws on a row that breaks them.
 *
 *   PENDING → QUEUED → SUBMITTED → COMPLETED;  PENDING/QUEUED → CANCELLED
 *   (a nonce consumed outside the service sends QUEUED/SUBMITTED back to PENDING)
 */
export type TransactionLifecycle =
  | PendingTransaction
  | QueuedTransaction
  | SubmittedTransaction
  | CompletedTransaction
  | CancelledTransaction;

/** The variants of the states given. */
export type TransactionIn<S extends TransactionState> = Extract<TransactionLifecycle, { state: S }>;

/** What every state has: what to send, and from where. */
interface TransactionBase {
  id: string;
  organizationId: string | null;
  networkId: number;
  walletId: string;
  type: TransactionType;
  from: Hex;
  /** null deploys a contract. */
  to: Hex | null;
  data: Hex;
  value: bigint;
  /** Versions signed so far. */
  attempts: number;
}

/** Nonce assigned and signed: the raw bytes are stored before any broadcast. */
interface Signed {
  nonce: bigint;
  gasLimit: bigint;
  /** The newest signed version (fee bumps re-sign with the same nonce). */
  raw: Hex;
  hash: Hex;
  fees: Fees;
}

/** Created; a gas limit when the caller gave one or an earlier estimate was kept. */
export interface PendingTransaction extends TransactionBase {
  state: 'PENDING';
  gasLimit: bigint | null;
  /** A batch of token flow deliveries (closed: its data written): the entries it carries. */
  batch: { key: string; size: number } | null;
}

export interface QueuedTransaction extends TransactionBase, Signed {
  state: 'QUEUED';
}

/** The block a receipt placed the transaction in (it can still be reorganised away). */
export interface MinedBlock {
  number: bigint;
  hash: Hex;
}

export interface SubmittedTransaction extends TransactionBase, Signed {
  state: 'SUBMITTED';
  /** Head block when last broadcast (fee bumps and re-broadcasts count from it). */
  submittedBlock: bigint;
  /** Mined, waiting for `confirmations`; null until a receipt is seen (or after a reorg). */
  mined: MinedBlock | null;
}

export interface TransactionReceiptFields {
  status: 'SUCCESS' | 'FAILURE';
  block: MinedBlock;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  fee: bigint;
  contractAddress: Hex | null;
}

/** Mined and `confirmations` deep on the canonical chain. */
export interface CompletedTransaction extends TransactionBase, Signed {
  state: 'COMPLETED';
  submittedBlock: bigint;
  receipt: TransactionReceiptFields;
  completedAt: Date;
}

/** Could never succeed (reverted in estimation, refused by the node); a QUEUED one kept its nonce. */
export interface CancelledTransaction extends TransactionBase {
  state: 'CANCELLED';
  failureReason: string;
  completedAt: Date;
}

export class BrokenTransactionRow extends Error {
  constructor(row: Pick<TransactionRow, 'id' | 'state'>, problem: string) {
    super(`transaction ${row.id} (${row.state}) breaks its lifecycle: ${problem}`);
  }
}

/** The variant of a row; throws BrokenTransactionRow when the row breaks its state's invariant. */
export function lifecycleOf(row: TransactionRow): TransactionLifecycle {
  const field = new Fields(row);
  const base: TransactionBase = {
    id: row.id,
    organizationId: row.organization_id,
    networkId: row.network_id,
    walletId: row.wallet_id,
    type: row.type,
    from: field.hex('from_address', row.from_address),
    to: row.to_address === null ? null : field.hex('to_address', row.to_address),
    data: field.hex('data', row.data),
    value: field.bigint('value', row.value),
    attempts: row.attempts,
  };
  const state = row.state;
  switch (state) {
    case 'PENDING':
      // A nonce goes with signed bytes: a PENDING row holds neither (a renonce clears them).
      for (const column of ['nonce', 'raw_tx', 'tx_hash'] as const) {
        if (row[column] !== null) throw new BrokenTransactionRow(row, `${column} is set`);
      }
      return {
        ...base,
        state,
        gasLimit: row.gas_limit === null ? null : field.bigint('gas_limit', row.gas_limit),
        batch: row.batch_key === null ? null : { key: row.batch_key, size: row.batch_size },
      };
    case 'QUEUED':
      return { ...base, ...signedOf(row, field), state };
    case 'SUBMITTED':
      return {
        ...base,
        ...signedOf(row, field),
        state,
        submittedBlock: field.bigint('submitted_block', row.submitted_block),
        mined: minedOf(row, field),
      };
    case 'COMPLETED': {
      const block = minedOf(row, field);
      if (block === null) throw new BrokenTransactionRow(row, 'mined_block_number is null');
      if (row.on_chain_status === null) throw new BrokenTransactionRow(row, 'on_chain_status is null');
      return {
        ...base,
        ...signedOf(row, field),
        state,
        submittedBlock: field.bigint('submitted_block', row.submitted_block),
        receipt: {
          status: row.on_chain_status,
          block,
          gasUsed: field.bigint('gas_used', row.gas_used),
          effectiveGasPrice: field.bigint('effective_gas_price', row.effective_gas_price),
          fee: field.bigint('fee', row.fee),
          contractAddress:
            row.contract_address === null ? null : field.hex('contract_address', row.contract_address),
        },
        completedAt: field.present('completed_at', row.completed_at),
      };
    }
    case 'CANCELLED':
      return {
        ...base,
        state,
        failureReason: field.present('failure_reason', row.failure_reason),
        completedAt: field.present('completed_at', row.completed_at),
      };
    default:
      // Not assertNever: the row comes from the database, where the state is only text.
      throw new BrokenTransactionRow(row, 'unknown state');
  }
}

/** The variant of a row expected in one of `states` (the query selected them); throws otherwise. */
export function lifecycleIn<S extends TransactionState>(
  row: TransactionRow,
  states: readonly S[],
): TransactionIn<S> {
  const transaction = lifecycleOf(row);
  if (!(states as readonly TransactionState[]).includes(transaction.state)) {
    throw new BrokenTransactionRow(row, `expected ${states.join(' or ')}`);
  }
  return transaction as TransactionIn<S>;
}

function signedOf(row: TransactionRow, field: Fields): Signed {
  return {
    nonce: field.bigint('nonce', row.nonce),
    gasLimit: field.bigint('gas_limit', row.gas_limit),
    raw: field.hex('raw_tx', row.raw_tx),
    hash: field.hex('tx_hash', row.tx_hash),
    fees: feesOf(row, field),
  };
}

/** One fee model per signed version: legacy (gas price) or EIP-1559 (max fee and tip). */
function feesOf(row: TransactionRow, field: Fields): Fees {
  const { gas_price, max_fee_per_gas, max_priority_fee_per_gas } = row;
  if (gas_price !== null && max_fee_per_gas === null && max_priority_fee_per_gas === null) {
    return { type: 'legacy', gasPrice: field.bigint('gas_price', gas_price) };
  }
  if (gas_price === null && max_fee_per_gas !== null && max_priority_fee_per_gas !== null) {
    return {
      type: 'eip1559',
      maxFeePerGas: field.bigint('max_fee_per_gas', max_fee_per_gas),
      maxPriorityFeePerGas: field.bigint('max_priority_fee_per_gas', max_priority_fee_per_gas),
    };
  }
  throw new BrokenTransactionRow(row, 'fees are neither legacy nor EIP-1559');
}

function minedOf(row: TransactionRow, field: Fields): MinedBlock | null {
  if (row.mined_block_number === null && row.mined_block_hash === null) return null;
  return {
    number: field.bigint('mined_block_number', row.mined_block_number),
    hash: field.hex('mined_block_hash', row.mined_block_hash),
  };
}

/** Reads columns of one row, naming the row and the column in what it throws. */
class Fields {
  constructor(private readonly row: TransactionRow) {}

  present<T>(column: string, value: T | null): T {
    if (value === null) throw new BrokenTransactionRow(this.row, `${column} is null`);
    return value;
  }

  bigint(column: string, value: string | null): bigint {
    const text = this.present(column, value);
    if (!/^\d+$/.test(text)) throw new BrokenTransactionRow(this.row, `${column} is not an integer`);
    return BigInt(text);
  }

  hex(column: string, value: string | null): Hex {
    const text = this.present(column, value);
    if (!isHex(text)) throw new BrokenTransactionRow(this.row, `${column} is not hex`);
    return text;
  }
}
