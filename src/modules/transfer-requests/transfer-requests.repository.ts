import type { Executor } from '../../db/database.ts';
import type { TokenRequestRow, TransactionState } from '../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../http/pagination.ts';

/** A transfer request with what it shows of its transaction and item. */
export interface TransferRequestView extends TokenRequestRow {
  transaction_state: TransactionState;
  tx_hash: string | null;
  token_id: string | null;
}

export interface NewTransferRequest {
  id: string;
  organization_id: string;
  collection_id: string;
  item_id: string;
  quantity: bigint;
  to_address: string;
  transaction_id: string;
}

export async function insertTransferRequests(
  db: Executor,
  rows: readonly NewTransferRequest[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('transfer_requests')
    .values(rows.map((r) => ({ ...r, quantity: r.quantity.toString() })))
    .execute();
}

function views(db: Executor) {
  return db
    .selectFrom('transfer_requests')
    .innerJoin('transactions', 'transactions.id', 'transfer_requests.transaction_id')
    .innerJoin('items', 'items.id', 'transfer_requests.item_id')
    .selectAll('transfer_requests')
    .select(['transactions.state as transaction_state', 'transactions.tx_hash', 'items.token_id']);
}

export function findTransferRequest(db: Executor, id: string): Promise<TransferRequestView | undefined> {
  return views(db).where('transfer_requests.id', '=', id).executeTakeFirst();
}

export function findTransferRequests(db: Executor, ids: readonly string[]): Promise<TransferRequestView[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return views(db)
    .where('transfer_requests.id', 'in', ids)
    .orderBy('transfer_requests.created_at')
    .orderBy('transfer_requests.id')
    .execute();
}

export interface TransferRequestFilters {
  organizationId: string | undefined;
  itemId: string | undefined;
  collectionId: string | undefined;
  toAddress: string | undefined;
}

export function listTransferRequests(
  db: Executor,
  page: PageParams,
  filters: TransferRequestFilters,
): Promise<PageResult<TransferRequestView>> {
  let query = views(db);
  if (filters.organizationId !== undefined)
    query = query.where('transfer_requests.organization_id', '=', filters.organizationId);
  if (filters.itemId !== undefined) query = query.where('transfer_requests.item_id', '=', filters.itemId);
  if (filters.collectionId !== undefined)
    query = query.where('transfer_requests.collection_id', '=', filters.collectionId);
  if (filters.toAddress !== undefined)
    query = query.where('transfer_requests.to_address', '=', filters.toAddress);
  return paginate(query, {
    page,
    filters: { ...filters },
    sortColumn: 'transfer_requests.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'transfer_requests.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}

/** The requests a transaction carries that have not settled yet, locked, in creation order. */
export function lockOpenTransferRequests(db: Executor, transactionId: string): Promise<TokenRequestRow[]> {
  return db
    .selectFrom('transfer_requests')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .where('state', 'not in', ['COMPLETED', 'FAILED'])
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .execute();
}

export async function settleTransferRequests(
  db: Executor,
  ids: readonly string[],
  outcome: { state: 'COMPLETED' } | { state: 'FAILED'; reason: string },
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('transfer_requests')
    .set({
      state: outcome.state,
      failure_reason: outcome.state === 'FAILED' ? outcome.reason : null,
      updated_at: new Date(),
    })
    .where('id', 'in', ids)
    .execute();
}
