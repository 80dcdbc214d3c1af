import type { Executor, Tx } from '../../../db/executor.ts';
import type { TokenFlowOwnerKind, TokenRequestRow, TransactionState } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

/**
 * Mint and transfer requests: two tables of the same shape (src/db/schema.ts TokenRequestsTable),
 * read and written by the same SQL with the table named by the caller.
 */
export type TokenRequestTable = 'mint_requests' | 'transfer_requests';

// Both tables have one column type, so the queries are typed against one of them.
const typed = (table: TokenRequestTable) => table as 'mint_requests';

/** A request with what it shows of its transaction and item. */
export interface TokenRequestView extends TokenRequestRow {
  transaction_state: TransactionState;
  tx_hash: string | null;
  token_id: string | null;
}

export interface NewTokenRequest {
  id: string;
  organization_id: string;
  collection_id: string;
  item_id: string;
  quantity: bigint;
  to_address: string;
  transaction_id: string;
  owner_kind: TokenFlowOwnerKind;
  owner_id: string | null;
}

export async function insertRequests(
  db: Executor,
  table: TokenRequestTable,
  rows: readonly NewTokenRequest[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto(typed(table))
    .values(rows.map((r) => ({ ...r, quantity: r.quantity.toString() })))
    .execute();
}

function views(db: Executor, table: TokenRequestTable) {
  return db
    .selectFrom(`${typed(table)} as r`)
    .innerJoin('transactions', 'transactions.id', 'r.transaction_id')
    .innerJoin('items', 'items.id', 'r.item_id')
    .selectAll('r')
    .select(['transactions.state as transaction_state', 'transactions.tx_hash', 'items.token_id']);
}

export function findRequest(
  db: Executor,
  table: TokenRequestTable,
  id: string,
): Promise<TokenRequestView | undefined> {
  return views(db, table).where('r.id', '=', id).executeTakeFirst();
}

export function findRequests(
  db: Executor,
  table: TokenRequestTable,
  ids: readonly string[],
): Promise<TokenRequestView[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return views(db, table).where('r.id', 'in', ids).orderBy('r.created_at').orderBy('r.id').execute();
}

export interface TokenRequestFilters {
  organizationId: string | undefined;
  itemId: string | undefined;
  collectionId: string | undefined;
  toAddress: string | undefined;
}

export function listRequests(
  db: Executor,
  table: TokenRequestTable,
  page: PageParams,
  filters: TokenRequestFilters,
): Promise<PageResult<TokenRequestView>> {
  let query = views(db, table);
  if (filters.organizationId !== undefined)
    query = query.where('r.organization_id', '=', filters.organizationId);
  if (filters.itemId !== undefined) query = query.where('r.item_id', '=', filters.itemId);
  if (filters.collectionId !== undefined) query = query.where('r.collection_id', '=', filters.collectionId);
  if (filters.toAddress !== undefined) query = query.where('r.to_address', '=', filters.toAddress);
  return paginate(query, {
    page,
    filters: { ...filters },
    sortColumn: 'r.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'r.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}

/** Whether a transaction carries records that have not settled yet (read without a lock). */
export async function hasOpenRequests(
  db: Executor,
  table: TokenRequestTable,
  transactionId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom(typed(table))
    .select('id')
    .where('transaction_id', '=', transactionId)
    .where('state', 'not in', ['COMPLETED', 'FAILED'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

function openRequests(db: Executor, table: TokenRequestTable, transactionId: string) {
  return db
    .selectFrom(typed(table))
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .where('state', 'not in', ['COMPLETED', 'FAILED'])
    .orderBy('created_at')
    .orderBy('id');
}

/** The requests a transaction carries that have not settled yet, in creation order (no lock). */
export function findOpenRequests(
  db: Executor,
  table: TokenRequestTable,
  transactionId: string,
): Promise<TokenRequestRow[]> {
  return openRequests(db, table, transactionId).execute();
}

/** The requests a transaction carries that have not settled yet, locked, in creation order. */
export function lockOpenRequests(
  db: Tx,
  table: TokenRequestTable,
  transactionId: string,
): Promise<TokenRequestRow[]> {
  return openRequests(db, table, transactionId).forUpdate().execute();
}

export async function settleRequests(
  db: Executor,
  table: TokenRequestTable,
  ids: readonly string[],
  outcome: { state: 'COMPLETED' } | { state: 'FAILED'; reason: string },
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable(typed(table))
    .set({
      state: outcome.state,
      failure_reason: outcome.state === 'FAILED' ? outcome.reason : null,
      updated_at: new Date(),
    })
    .where('id', 'in', ids)
    .execute();
}
