import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { TransactionRow, TransactionType, WalletRow } from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { findNetwork } from '../networks/networks.service.ts';
import { emitEvent, emitEvents, type NewEvent } from '../webhooks/webhook-events.service.ts';
import * as batches from './transaction-batches.repository.ts';
import * as repo from './transactions.repository.ts';
import type { Transaction } from './transactions.schemas.ts';

export interface QueueTransactionInput {
  networkId: number;
  wallet: WalletRow;
  type: TransactionType;
  /** null deploys a contract. */
  to: string | null;
  data: string;
  value?: bigint;
  gasLimit?: bigint;
}

/**
 * Records an on-chain write as PENDING in the caller's database transaction; the relayer takes
 * it from there. The caller keeps the returned id (deployment, mint request…).
 */
export async function queueTransaction(db: Executor, input: QueueTransactionInput): Promise<TransactionRow> {
  // One statement when the network is there and enabled; the reason is looked up only otherwise.
  const row = await repo.insertTransactionOn(
    db,
    {
      organizationId: input.wallet.organization_id,
      networkId: input.networkId,
      walletId: input.wallet.id,
      from: input.wallet.address,
      type: input.type,
      to: input.to,
      data: input.data,
      value: input.value ?? 0n,
      ...(input.gasLimit !== undefined && { gasLimit: input.gasLimit }),
    },
    true,
  );
  return row ?? refusedOn(db, input.networkId);
}

export interface BatchEntriesInput extends Omit<QueueTransactionInput, 'data' | 'gasLimit' | 'value'> {
  /** What may share a transaction: one call on one contract (the caller's key, with its collection). */
  key: string;
  /** Entries to place together (one request's records). */
  size: number;
  /** Entries a batch of this key carries at most. */
  cap: number;
}

/**
 * Places entries in an open batch of their key with room for them, or opens one (PENDING, its
 * calldata written by the relayer when it closes it: full, or its network's window passed), in
 * the caller's database transaction; answers the transaction they ride in. A batch being joined
 * by another caller is passed over, never waited for.
 */
export async function queueBatchEntries(db: Tx, input: BatchEntriesInput): Promise<TransactionRow> {
  const joined = await batches.joinOpenBatch(db, input.key, input.size);
  if (joined) return joined;
  const row = await repo.insertTransactionOn(
    db,
    {
      organizationId: input.wallet.organization_id,
      networkId: input.networkId,
      walletId: input.wallet.id,
      from: input.wallet.address,
      type: input.type,
      to: input.to,
      data: '0x',
      value: 0n,
      batch: { key: input.key, size: input.size, cap: Math.max(input.cap, input.size) },
    },
    true,
  );
  return row ?? refusedOn(db, input.networkId);
}

/** Why nothing was queued on the network: unknown (404) or disabled (409). */
async function refusedOn(db: Executor, networkId: number): Promise<never> {
  const network = await findNetwork(db, networkId);
  if (!network) throw new ApiError('NOT_FOUND', `network ${networkId} not found`);
  throw new ApiError('INVALID_STATE', `network ${networkId} is disabled`);
}

export function findTransaction(db: Executor, id: string): Promise<TransactionRow | undefined> {
  return repo.findTransaction(db, id);
}

export async function getTransaction(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<TransactionRow> {
  const row = await repo.findTransaction(db, id);
  // Platform transactions (funding from the platform wallet) belong to no organization.
  if (!row || (row.organization_id === null && !isPlatformAdmin(principal))) {
    throw new ApiError('NOT_FOUND', 'transaction not found');
  }
  if (row.organization_id !== null) assertOrganizationAccess(principal, row.organization_id, 'transaction');
  return row;
}

export function listTransactions(
  db: Executor,
  principal: Principal,
  page: PageParams,
  filters: Omit<repo.TransactionFilters, 'organizationId'>,
): Promise<PageResult<TransactionRow>> {
  return repo.listTransactions(db, page, {
    ...filters,
    organizationId: isPlatformAdmin(principal) ? undefined : principal.organizationId,
  });
}

const toInt = (v: string | null) => (v === null ? null : Number(v));

export function toTransaction(row: TransactionRow): Transaction {
  return {
    id: row.id,
    organization_id: row.organization_id,
    network_id: row.network_id,
    wallet_id: row.wallet_id,
    type: row.type,
    state: row.state,
    from_address: row.from_address,
    to_address: row.to_address,
    value: row.value,
    nonce: toInt(row.nonce),
    tx_hash: row.tx_hash,
    attempts: row.attempts,
    gas_limit: row.gas_limit,
    fees: {
      max_fee_per_gas: row.max_fee_per_gas,
      max_priority_fee_per_gas: row.max_priority_fee_per_gas,
      gas_price: row.gas_price,
      gas_used: row.gas_used,
      effective_gas_price: row.effective_gas_price,
      fee: row.fee,
    },
    on_chain_status: row.on_chain_status,
    block_number: toInt(row.mined_block_number),
    contract_address: row.contract_address,
    failure_reason: row.failure_reason,
    last_error: row.last_error,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    completed_at: iso(row.completed_at),
  };
}

/**
 * transaction.completed (mined and succeeded) or transaction.failed (reverted or cancelled), in
 * the relayer's database transaction that settles the row. Platform transactions (no
 * organization) have no subscriber.
 */
export async function emitSettledEvent(db: Executor, row: TransactionRow): Promise<void> {
  const event = settledEvent(row);
  if (event) await emitEvent(db, event);
}

/** emitSettledEvent for many rows (the relayer settles a block's worth at once). */
export async function emitSettledEvents(db: Executor, rows: readonly TransactionRow[]): Promise<void> {
  await emitEvents(
    db,
    rows.map(settledEvent).filter((event) => event !== undefined),
  );
}

function settledEvent(row: TransactionRow): NewEvent | undefined {
  if (row.organization_id === null) return undefined;
  const succeeded = row.state === 'COMPLETED' && row.on_chain_status === 'SUCCESS';
  return {
    organizationId: row.organization_id,
    type: succeeded ? 'transaction.completed' : 'transaction.failed',
    resourceId: row.id,
    data: toTransaction(row),
  };
}
