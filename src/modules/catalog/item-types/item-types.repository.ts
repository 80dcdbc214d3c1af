import { sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { ItemTypeRow } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export function insertItemType(
  db: Executor,
  row: { id: string; organization_id: string; name: string; json_schema: Record<string, unknown> },
): Promise<ItemTypeRow> {
  return db
    .insertInto('item_types')
    .values({ ...row, json_schema: JSON.stringify(row.json_schema) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findItemType(db: Executor, id: string): Promise<ItemTypeRow | undefined> {
  return db.selectFrom('item_types').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The row locked against item writes until the caller's transaction ends (a schema edit). */
export function findItemTypeForUpdate(db: Tx, id: string): Promise<ItemTypeRow | undefined> {
  return db.selectFrom('item_types').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/**
 * Item types that items are being written against: FOR SHARE, so a concurrent schema edit
 * (FOR UPDATE) waits for the items, and the items are validated against the committed schema.
 */
export function findItemTypesForShare(db: Tx, ids: readonly string[]): Promise<ItemTypeRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('item_types').selectAll().where('id', 'in', ids).orderBy('id').forShare().execute();
}

/**
 * updated_at strictly increases on every edit (validators are cached by id and updated_at), even
 * when two edits fall in one millisecond or a transaction started before the previous edit.
 */
export function updateItemType(
  db: Executor,
  id: string,
  patch: { name: string; json_schema: Record<string, unknown> },
): Promise<ItemTypeRow> {
  return db
    .updateTable('item_types')
    .set({
      name: patch.name,
      json_schema: JSON.stringify(patch.json_schema),
      updated_at: sql<Date>`greatest(clock_timestamp(), updated_at + interval '1 millisecond')`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listItemTypes(
  db: Executor,
  page: PageParams,
  filters: { organizationId: string | undefined },
): Promise<PageResult<ItemTypeRow>> {
  let query = db.selectFrom('item_types').selectAll();
  if (filters.organizationId !== undefined)
    query = query.where('organization_id', '=', filters.organizationId);
  return paginate(query, {
    page,
    filters,
    sortColumn: 'item_types.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'item_types.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}

export interface TypedItem {
  id: string;
  attributes: Record<string, unknown>;
  created_at: Date;
}

/** The type's items in creation order, a batch after `after` (items_item_type_idx). */
export function itemsOfTypeBatch(
  db: Executor,
  itemTypeId: string,
  after: TypedItem | undefined,
  limit: number,
): Promise<TypedItem[]> {
  let query = db
    .selectFrom('items')
    .select(['id', 'attributes', 'created_at'])
    .where('item_type_id', '=', itemTypeId);
  if (after) query = query.where(sql<boolean>`(created_at, id) > (${after.created_at}, ${after.id})`);
  return query.orderBy('created_at').orderBy('id').limit(limit).execute();
}
