import type { Executor } from '../../db/database.ts';
import type { TokenRequestRow, TransactionState } from '../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../http/pagination.ts';

/** A mint request with what it shows of its transaction and item. */
export interface MintRequestView extends TokenRequestRow {
  transaction_state: TransactionState;
  tx_hash: string | null;
  token_id: string | null;
}

export interface NewMintRequest {
  id: string;
  organization_id: string;
  collection_id: string;
  item_id: string;
  quantity: bigint;
  to_address: string;
  transaction_id: string;
}

export async function insertMintRequests(db: Executor, rows: readonly NewMintRequest[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('mint_requests')
    .values(rows.map((r) => ({ ...r, quantity: r.quantity.toString() })))
    .execute();
}

function views(db: Executor) {
  return db
    .selectFrom('mint_requests')
    .innerJoin('transactions', 'transactions.id', 'mint_requests.transaction_id')
    .innerJoin('items', 'items.id', 'mint_requests.item_id')
    .selectAll('mint_requests')
    .select(['transactions.state as transaction_state', 'transactions.tx_hash', 'items.token_id']);
}

export function findMintRequest(db: Executor, id: string): Promise<MintRequestView | undefined> {
  return views(db).where('mint_requests.id', '=', id).executeTakeFirst();
}

export function findMintRequests(db: Executor, ids: readonly string[]): Promise<MintRequestView[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return views(db)
    .where('mint_requests.id', 'in', ids)
    .orderBy('mint_requests.created_at')
    .orderBy('mint_requests.id')
    .execute();
}

export interface MintRequestFilters {
  organizationId: string | undefined;
  itemId: string | undefined;
  collectionId: string | undefined;
  toAddress: string | undefined;
}

export function listMintRequests(
  db: Executor,
  page: PageParams,
  filters: MintRequestFilters,
): Promise<PageResult<MintRequestView>> {
  let query = views(db);
  if (filters.organizationId !== undefined)
    query = query.where('mint_requests.organization_id', '=', filters.organizationId);
  if (filters.itemId !== undefined) query = query.where('mint_requests.item_id', '=', filters.itemId);
  if (filters.collectionId !== undefined)
    query = query.where('mint_requests.collection_id', '=', filters.collectionId);
  if (filters.toAddress !== undefined)
    query = query.where('mint_requests.to_address', '=', filters.toAddress);
  return paginate(query, {
    page,
    filters: { ...filters },
    sortColumn: 'mint_requests.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'mint_requests.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}

/** The requests a transaction carries that have not settled yet, locked, in creation order. */
export function lockOpenMintRequests(db: Executor, transactionId: string): Promise<TokenRequestRow[]> {
  return db
    .selectFrom('mint_requests')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .where('state', 'not in', ['COMPLETED', 'FAILED'])
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .execute();
}

export async function settleMintRequests(
  db: Executor,
  ids: readonly string[],
  outcome: { state: 'COMPLETED' } | { state: 'FAILED'; reason: string },
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('mint_requests')
    .set({
      state: outcome.state,
      failure_reason: outcome.state === 'FAILED' ? outcome.reason : null,
      updated_at: new Date(),
    })
    .where('id', 'in', ids)
    .execute();
}
