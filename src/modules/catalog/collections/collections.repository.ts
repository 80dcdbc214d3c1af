import type { Insertable, Updateable } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { CollectionRow, CollectionsTable } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

/** The unique index that keeps names unique within an organization. */
export const COLLECTION_NAME_KEY = 'collections_organization_id_name_key';

export function findCollection(db: Executor, id: string): Promise<CollectionRow | undefined> {
  return db.selectFrom('collections').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The row locked until the end of the caller's transaction. FOR NO KEY UPDATE: edits, locks and
 * deployments of one collection run one after another, while items keep being inserted into it
 * (their foreign key check takes FOR KEY SHARE, which this lock does not block).
 */
export function findCollectionForUpdate(db: Tx, id: string): Promise<CollectionRow | undefined> {
  return db.selectFrom('collections').selectAll().where('id', '=', id).forNoKeyUpdate().executeTakeFirst();
}

/** The collection whose deployment is the transaction `transactionId`, locked. */
function collectionByDeployment(db: Executor, transactionId: string) {
  return db.selectFrom('collections').selectAll().where('deployment_transaction_id', '=', transactionId);
}

export function findCollectionByDeployment(
  db: Executor,
  transactionId: string,
): Promise<CollectionRow | undefined> {
  return collectionByDeployment(db, transactionId).executeTakeFirst();
}

export function findCollectionByDeploymentForUpdate(
  db: Tx,
  transactionId: string,
): Promise<CollectionRow | undefined> {
  return collectionByDeployment(db, transactionId).forNoKeyUpdate().executeTakeFirst();
}

export function insertCollection(db: Executor, row: Insertable<CollectionsTable>): Promise<CollectionRow> {
  return db.insertInto('collections').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateCollection(
  db: Executor,
  id: string,
  patch: Updateable<CollectionsTable>,
): Promise<CollectionRow> {
  return db
    .updateTable('collections')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Whether `itemTypeId` is an item type of the organization. */
export async function itemTypeBelongsTo(
  db: Executor,
  itemTypeId: string,
  organizationId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('item_types')
    .select('id')
    .where('id', '=', itemTypeId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface CollectionFilters {
  /** Undefined: every organization's (platform admins). */
  organizationId: string | undefined;
  name: string | undefined;
  /** EIP-55 checksummed, as stored. */
  contractAddress: string | undefined;
  tokenType: 'ERC721' | 'ERC1155' | undefined;
  networkId: number | undefined;
}

/** Ordered by name (the only order_by), ties by id. */
export function listCollections(
  db: Executor,
  page: PageParams,
  filters: CollectionFilters,
): Promise<PageResult<CollectionRow>> {
  let query = db.selectFrom('collections').selectAll();
  if (filters.organizationId !== undefined)
    query = query.where('organization_id', '=', filters.organizationId);
  if (filters.name !== undefined) query = query.where('name', '=', filters.name);
  if (filters.contractAddress !== undefined)
    query = query.where('contract_address', '=', filters.contractAddress);
  if (filters.tokenType !== undefined) query = query.where('token_type', '=', filters.tokenType);
  if (filters.networkId !== undefined) query = query.where('network_id', '=', filters.networkId);
  return paginate(query, {
    page,
    filters: { ...filters, order_by: 'NAME' },
    sortColumn: 'collections.name',
    sortKind: 'text',
    sortValue: (r) => r.name,
    idColumn: 'collections.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}

/**
 * Takes `count` consecutive AUTOMATIC token ids: the counter moves under the row lock the update
 * takes, so concurrent lock requests get disjoint, increasing ranges. Returns the first id.
 */
export async function takeTokenIds(db: Executor, collectionId: string, count: bigint): Promise<bigint> {
  const row = await db
    .updateTable('collections')
    .set((eb) => ({ next_token_id: eb('next_token_id', '+', count.toString()) }))
    .where('id', '=', collectionId)
    .returning('next_token_id')
    .executeTakeFirstOrThrow();
  return BigInt(row.next_token_id) - count;
}
