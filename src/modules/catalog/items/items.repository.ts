import { type RawBuilder, sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import { hotQuery } from '../../../db/prepared.ts';
import type { ItemRow, RoyaltyInfo } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';
import { HOLDS_NOW } from './item-flows.repository.ts';

/** Items by id, unlocked (to find their collection before taking any lock). */
export function findItems(db: Executor, ids: readonly string[]): Promise<ItemRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('items').selectAll().where('id', 'in', ids).execute();
}

const itemById = hotQuery((db, id: string) => db.selectFrom('items').selectAll().where('id', '=', id));

export async function findItem(db: Executor, id: string): Promise<ItemRow | undefined> {
  return (await itemById(db, id))[0];
}

export function findItemForUpdate(db: Tx, id: string): Promise<ItemRow | undefined> {
  return db.selectFrom('items').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function findItemByTokenId(
  db: Executor,
  collectionId: string,
  tokenId: bigint,
): Promise<ItemRow | undefined> {
  return db
    .selectFrom('items')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .where('token_id', '=', tokenId.toString())
    .executeTakeFirst();
}

export interface NewItem {
  id: string;
  organization_id: string;
  collection_id: string;
  item_type_id: string | null;
  attributes: Record<string, unknown>;
}

export function insertItem(db: Executor, item: NewItem): Promise<ItemRow> {
  return db
    .insertInto('items')
    .values({ ...item, attributes: JSON.stringify(item.attributes) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Rows per INSERT of a bulk create: one round trip each, the rows sent as one JSON array. */
const INSERT_CHUNK = 5000;

/** Many items, a few thousand per statement (one JSON parameter unpacked by the database). */
export async function insertItems(db: Executor, items: readonly NewItem[]): Promise<void> {
  for (let start = 0; start < items.length; start += INSERT_CHUNK) {
    const chunk = JSON.stringify(items.slice(start, start + INSERT_CHUNK));
    await sql`
      INSERT INTO items (id, organization_id, collection_id, item_type_id, attributes)
      SELECT r.id, r.organization_id, r.collection_id, r.item_type_id, r.attributes
      FROM jsonb_to_recordset(${chunk}::jsonb)
        AS r(id uuid, organization_id uuid, collection_id uuid, item_type_id uuid, attributes jsonb)
    `.execute(db);
  }
}

export interface ItemPatch {
  attributes?: Record<string, unknown>;
  item_type_id?: string | null;
  royalty_info?: RoyaltyInfo | null;
}

export function updateItem(db: Executor, id: string, patch: ItemPatch): Promise<ItemRow> {
  return db
    .updateTable('items')
    .set({
      ...(patch.attributes !== undefined && { attributes: JSON.stringify(patch.attributes) }),
      ...(patch.item_type_id !== undefined && { item_type_id: patch.item_type_id }),
      ...(patch.royalty_info !== undefined && {
        royalty_info: patch.royalty_info === null ? null : JSON.stringify(patch.royalty_info),
      }),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteItem(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('items').where('id', '=', id).execute();
}

export async function hasActiveReservation(db: Executor, itemId: string): Promise<boolean> {
  const row = await db
    .selectFrom('item_reservations')
    .select('id')
    .where('item_id', '=', itemId)
    .where(HOLDS_NOW)
    .executeTakeFirst();
  return row !== undefined;
}

/** One `attributes` filter entry: the attribute `name` whose text is `value`. */
export interface AttributeFilter {
  name: string;
  value: string;
  /** JSON texts whose containment (`attributes @> {name: json}`) any match must satisfy. */
  containment: string[];
}

export interface ItemFilters {
  collection_id: string;
  token_id?: string | undefined;
  attributes?: AttributeFilter[] | undefined;
  locked?: boolean | undefined;
}

/**
 * Items of one collection, keyset-paged on (created_at, id) along items_collection_idx. Each
 * attribute filter is `attributes->>name = value`, behind a containment test the GIN index
 * (jsonb_path_ops) answers: the two agree on every item, the containment only narrows fast.
 */
export function listItems(
  db: Executor,
  page: PageParams,
  filters: ItemFilters,
): Promise<PageResult<ItemRow>> {
  let query = db.selectFrom('items').selectAll().where('collection_id', '=', filters.collection_id);
  if (filters.token_id !== undefined) query = query.where('token_id', '=', filters.token_id);
  if (filters.locked !== undefined) query = query.where('locked', '=', filters.locked);
  for (const filter of filters.attributes ?? []) {
    const exact = sql<boolean>`items.attributes ->> ${filter.name} = ${filter.value}`;
    if (filter.containment.length === 0) {
      query = query.where(exact);
      continue;
    }
    const contains: RawBuilder<unknown>[] = filter.containment.map(
      (json) => sql`items.attributes @> ${json}::jsonb`,
    );
    query = query.where(sql<boolean>`(${sql.join(contains, sql` OR `)}) AND ${exact}`);
  }
  return paginate(query, {
    page,
    filters: {
      collection_id: filters.collection_id,
      token_id: filters.token_id,
      locked: filters.locked,
      attributes: filters.attributes?.map((f) => [f.name, f.value]),
    },
    sortColumn: 'items.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'items.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
    // With no filter but `locked`, the collection's counters (kept by triggers) are the total.
    ...(filters.token_id === undefined &&
      (filters.attributes ?? []).length === 0 && {
        total: () => countedItems(db, filters.collection_id, filters.locked),
      }),
    prepared: (filters.attributes ?? []).length === 0,
  });
}

const collectionCounters = hotQuery((db, collectionId: string) =>
  db.selectFrom('collections').select(['item_count', 'locked_item_count']).where('id', '=', collectionId),
);

async function countedItems(
  db: Executor,
  collectionId: string,
  locked: boolean | undefined,
): Promise<number> {
  const [row] = await collectionCounters(db, collectionId);
  if (!row) return 0;
  const all = Number(row.item_count);
  const lockedCount = Number(row.locked_item_count);
  if (locked === undefined) return all;
  return locked ? lockedCount : all - lockedCount;
}

export interface ItemStatusRow {
  email_claim_ids: string[];
  listing_ids: string[];
  mint_request_ids: string[];
  transfer_request_ids: string[];
  reserved_mint: string;
  reserved_transfer: string;
}

/** What holds or held the item: reservation holders, requests, quantities reserved now. */
export async function itemStatus(db: Executor, itemId: string): Promise<ItemStatusRow> {
  const holders = (kind: string) => sql`ARRAY(
    SELECT holder_id FROM item_reservations WHERE item_id = ${itemId} AND kind = ${kind}
    GROUP BY holder_id ORDER BY min(created_at), holder_id)`;
  const reserved = (kind: string) => sql`(
    SELECT coalesce(sum(quantity), 0)::text FROM item_reservations
    WHERE item_id = ${itemId} AND kind = ${kind} AND ${HOLDS_NOW})`;
  const result = await sql<ItemStatusRow>`
    SELECT
      ${holders('EMAIL_CLAIM')} AS email_claim_ids,
      ${holders('LISTING')} AS listing_ids,
      ARRAY(SELECT id FROM mint_requests WHERE item_id = ${itemId} ORDER BY created_at, id) AS mint_request_ids,
      ARRAY(SELECT id FROM transfer_requests WHERE item_id = ${itemId} ORDER BY created_at, id)
        AS transfer_request_ids,
      ${reserved('MINT')} AS reserved_mint,
      ${reserved('TRANSFER')} AS reserved_transfer
  `.execute(db);
  return result.rows[0]!;
}

// ---- Lock ----

/** Locks the named items (id order, as every flow locks items, so none deadlocks another). */
export function findItemsForUpdate(db: Tx, ids: readonly string[]): Promise<ItemRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('items').selectAll().where('id', 'in', ids).orderBy('id').forUpdate().execute();
}

export interface LockedItem {
  id: string;
  max_supply: string;
  token_id: string | null;
}

/** Locks items with their token ids (null: assigned at mint), one statement for all of them. */
export async function lockItems(
  db: Executor,
  assignments: readonly { id: string; tokenId: bigint | null }[],
  maxSupply: bigint,
): Promise<LockedItem[]> {
  const payload = JSON.stringify(
    assignments.map((a) => ({ id: a.id, token_id: a.tokenId === null ? null : a.tokenId.toString() })),
  );
  const result = await sql<LockedItem>`
    WITH updated AS (
      UPDATE items
      SET locked = true, max_supply = ${maxSupply.toString()}::numeric, token_id = a.token_id,
        updated_at = now()
      FROM jsonb_to_recordset(${payload}::jsonb) AS a(id uuid, token_id numeric)
      WHERE items.id = a.id AND NOT items.locked
      RETURNING items.id, items.max_supply, items.token_id, items.created_at
    )
    SELECT id, max_supply, token_id FROM updated ORDER BY created_at, id
  `.execute(db);
  return result.rows;
}

/**
 * Locks every unlocked item of the collection in one statement. With `firstTokenId` the items
 * get consecutive ids from it in creation order (created_at, id); else their ids stay null.
 * Returns them in creation order.
 */
export async function lockUnlockedItemsOfCollection(
  db: Executor,
  collectionId: string,
  maxSupply: bigint,
  firstTokenId: bigint | null,
): Promise<LockedItem[]> {
  const first = firstTokenId === null ? null : firstTokenId.toString();
  const result = await sql<LockedItem>`
    WITH picked AS (
      SELECT id, row_number() OVER (ORDER BY created_at, id) AS n
      FROM items
      WHERE collection_id = ${collectionId} AND NOT locked
    ), updated AS (
      UPDATE items
      SET locked = true, max_supply = ${maxSupply.toString()}::numeric,
        token_id = ${first}::numeric + picked.n - 1, updated_at = now()
      FROM picked
      WHERE items.id = picked.id AND NOT items.locked
      RETURNING items.id, items.max_supply, items.token_id, items.created_at
    )
    SELECT id, max_supply, token_id FROM updated ORDER BY created_at, id
  `.execute(db);
  return result.rows;
}
