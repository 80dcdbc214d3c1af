import { sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { ItemReservationRow, ItemRow, ReservationKind } from '../../../db/schema.ts';

/**
 * A reservation that holds its item now: not released, and not lapsed (an email claim's hold
 * carries its expiration: past it, the claim reads as inactive and its item is free, before the
 * claims' sweep gets to release it).
 */
export const HOLDS_NOW = sql<boolean>`(item_reservations.released_at IS NULL AND (item_reservations.expires_at IS NULL OR item_reservations.expires_at > now()))`;

/** Locks the named items, in id order so concurrent requests never deadlock. */
export function lockItemsForUpdate(db: Tx, ids: readonly string[]): Promise<ItemRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('items').selectAll().where('id', 'in', ids).orderBy('id').forUpdate().execute();
}

/** Locks the collection's items holding the given token ids, in id order. */
export function lockItemsByTokenIdForUpdate(
  db: Tx,
  collectionId: string,
  tokenIds: readonly bigint[],
): Promise<ItemRow[]> {
  if (tokenIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('items')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .where(
      'token_id',
      'in',
      tokenIds.map((id) => id.toString()),
    )
    .orderBy('id')
    .forUpdate()
    .execute();
}

export interface EligibleItemsQuery {
  collectionId: string;
  flow: 'MINT' | 'TRANSFER';
  quantity: bigint;
  /** MINT of ids the service names (AUTOMATIC, MANUAL): the item needs its token id. */
  needsTokenId: boolean;
  /** Only items whose token id lies in one of these inclusive ranges. */
  ranges?: readonly { from: bigint; to: bigint }[];
  limit: number;
}

/**
 * Locks up to `limit` items of a collection that the flow may take, oldest first, passing over
 * items another transaction holds (SKIP LOCKED) and items with an active reservation, so two
 * concurrent requests over one collection take disjoint sets.
 */
export function lockEligibleItems(db: Tx, query: EligibleItemsQuery): Promise<ItemRow[]> {
  const quantity = query.quantity.toString();
  let select = db
    .selectFrom('items')
    .selectAll()
    .where('collection_id', '=', query.collectionId)
    .where('locked', '=', true)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('item_reservations')
            .select('item_reservations.id')
            .whereRef('item_reservations.item_id', '=', 'items.id')
            .where(HOLDS_NOW),
        ),
      ),
    );
  if (query.flow === 'MINT') {
    select = select
      .where('token_status', '<>', 'MINTING')
      .where(sql<boolean>`minted_supply + ${quantity}::numeric <= max_supply`);
    if (query.needsTokenId) select = select.where('token_id', 'is not', null);
  } else {
    select = select
      .where('minted_supply', '>', '0')
      .where('token_id', 'is not', null)
      .where(sql<boolean>`held_supply >= ${quantity}::numeric`);
  }
  const ranges = query.ranges;
  if (ranges !== undefined) {
    select = select.where(({ or, and, eb }) =>
      or(
        ranges.map((r) =>
          and([eb('token_id', '>=', r.from.toString()), eb('token_id', '<=', r.to.toString())]),
        ),
      ),
    );
  }
  return select.orderBy('created_at').orderBy('id').limit(query.limit).forUpdate().skipLocked().execute();
}

/** The reservations that hold the given items now (HOLDS_NOW). */
export function activeReservations(db: Executor, itemIds: readonly string[]): Promise<ItemReservationRow[]> {
  if (itemIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('item_reservations')
    .selectAll()
    .where('item_id', 'in', itemIds)
    .where(HOLDS_NOW)
    .execute();
}

/**
 * Ends the lapsed reservations of the items (unreleased, past their expires_at), as of when they
 * lapsed, so that a new holder may take the items (one unreleased reservation per item).
 */
export async function releaseLapsedReservations(db: Executor, itemIds: readonly string[]): Promise<void> {
  if (itemIds.length === 0) return;
  await db
    .updateTable('item_reservations')
    .set((eb) => ({ released_at: eb.ref('expires_at') }))
    .where('item_id', 'in', itemIds)
    .where('released_at', 'is', null)
    .where('expires_at', '<=', sql<Date>`now()`)
    .execute();
}

export interface NewReservation {
  id: string;
  item_id: string;
  kind: ReservationKind;
  holder_id: string;
  quantity: bigint;
  expires_at?: Date | null;
}

export function insertReservations(
  db: Executor,
  rows: readonly NewReservation[],
): Promise<ItemReservationRow[]> {
  if (rows.length === 0) return Promise.resolve([]);
  return db
    .insertInto('item_reservations')
    .values(rows.map((r) => ({ ...r, quantity: r.quantity.toString() })))
    .returningAll()
    .execute();
}

/**
 * Passes items' active reservations from one holder to new ones, in one statement: each old
 * reservation is released and its successor (same item and quantity) inserted, so the history
 * keeps both and the item is never free in between. Returns the new reservations; an item that
 * `from` did not hold is not moved (the caller compares the count).
 */
export async function moveReservations(
  db: Executor,
  move: {
    from: string;
    kind: ReservationKind;
    /** item id → its new reservation's id and holder. */
    to: readonly { itemId: string; id: string; holderId: string }[];
    expiresAt: Date | null;
  },
): Promise<ItemReservationRow[]> {
  if (move.to.length === 0) return [];
  const result = await sql<ItemReservationRow>`
    WITH moved AS (
      UPDATE item_reservations SET released_at = now()
      WHERE holder_id = ${move.from} AND released_at IS NULL
        AND item_id = ANY(${sql.val(move.to.map((t) => t.itemId))}::uuid[])
      RETURNING item_id, quantity
    ), successor AS (
      SELECT * FROM unnest(
        ${sql.val(move.to.map((t) => t.itemId))}::uuid[],
        ${sql.val(move.to.map((t) => t.id))}::uuid[],
        ${sql.val(move.to.map((t) => t.holderId))}::uuid[]
      ) AS s(item_id, id, holder_id)
    )
    INSERT INTO item_reservations (id, item_id, kind, holder_id, quantity, expires_at)
    SELECT s.id, m.item_id, ${move.kind}, s.holder_id, m.quantity, ${move.expiresAt}
    FROM moved m JOIN successor s ON s.item_id = m.item_id
    RETURNING *`.execute(db);
  return result.rows;
}

/** Ends the active reservations of the holders; returns the items they held. */
export async function releaseReservations(db: Executor, holderIds: readonly string[]): Promise<string[]> {
  if (holderIds.length === 0) return [];
  const rows = await db
    .updateTable('item_reservations')
    .set({ released_at: new Date() })
    .where('holder_id', 'in', holderIds)
    .where('released_at', 'is', null)
    .returning('item_id')
    .execute();
  return rows.map((r) => r.item_id);
}

/** Ends one holder's active reservations of the given items; returns the items freed. */
export async function releaseItemReservations(
  db: Executor,
  holderId: string,
  itemIds: readonly string[],
): Promise<string[]> {
  if (itemIds.length === 0) return [];
  const rows = await db
    .updateTable('item_reservations')
    .set({ released_at: new Date() })
    .where('holder_id', '=', holderId)
    .where('item_id', 'in', itemIds)
    .where('released_at', 'is', null)
    .returning('item_id')
    .execute();
  return rows.map((r) => r.item_id);
}

/** Sets the quantity of a holder's active reservations (the units it still keeps for others). */
export async function setReservedQuantity(db: Executor, holderId: string, quantity: bigint): Promise<void> {
  await db
    .updateTable('item_reservations')
    .set({ quantity: quantity.toString() })
    .where('holder_id', '=', holderId)
    .where('released_at', 'is', null)
    .execute();
}

export async function setMinting(db: Executor, itemIds: readonly string[]): Promise<void> {
  if (itemIds.length === 0) return;
  await db
    .updateTable('items')
    .set({ token_status: 'MINTING', updated_at: new Date() })
    .where('id', 'in', itemIds)
    .execute();
}

/** A mint landed: supply grows, the status is MINTED, an id the contract chose is recorded. */
export async function addMinted(
  db: Executor,
  itemId: string,
  quantity: bigint,
  held: bigint,
  tokenId: bigint | undefined,
): Promise<void> {
  await db
    .updateTable('items')
    .set((eb) => ({
      token_status: 'MINTED',
      minted_supply: sql`${eb.ref('minted_supply')} + ${quantity.toString()}::numeric`,
      held_supply: sql`${eb.ref('held_supply')} + ${held.toString()}::numeric`,
      ...(tokenId !== undefined && {
        token_id: sql`coalesce(${eb.ref('token_id')}, ${tokenId.toString()}::numeric)`,
      }),
      updated_at: new Date(),
    }))
    .where('id', '=', itemId)
    .execute();
}

/** A mint failed: MINTING items go back to what their supply says. */
export async function revertMinting(db: Executor, itemIds: readonly string[]): Promise<void> {
  if (itemIds.length === 0) return;
  await db
    .updateTable('items')
    .set({
      token_status: sql`CASE WHEN minted_supply > 0 THEN 'MINTED' ELSE 'NOT_MINTED' END`,
      updated_at: new Date(),
    })
    .where('id', 'in', itemIds)
    .where('token_status', '=', 'MINTING')
    .execute();
}

/** Units left (or came back to) the organization's wallet; never below zero. */
export async function changeHeld(db: Executor, itemId: string, delta: bigint): Promise<void> {
  await db
    .updateTable('items')
    .set((eb) => ({
      held_supply: sql`greatest(${eb.ref('held_supply')} + ${delta.toString()}::numeric, 0)`,
      updated_at: new Date(),
    }))
    .where('id', '=', itemId)
    .execute();
}

/**
 * Locks up to `limit` items of a collection a listing may take: locked, not reserved, not being
 * minted, and either not minted (sold by minting; `mintOnly`: only these) or minted and held by
 * the organization's wallet (sold by transfer). Lowest token id first; rows another transaction
 * holds are passed over.
 */
export function lockListableItems(
  db: Tx,
  query: {
    collectionId: string;
    mintOnly: boolean;
    ranges?: readonly { from: bigint; to: bigint }[];
    limit: number;
  },
): Promise<ItemRow[]> {
  let select = db
    .selectFrom('items')
    .selectAll()
    .where('collection_id', '=', query.collectionId)
    .where('locked', '=', true)
    .where('token_status', '<>', 'MINTING')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('item_reservations')
            .select('item_reservations.id')
            .whereRef('item_reservations.item_id', '=', 'items.id')
            .where(HOLDS_NOW),
        ),
      ),
    )
    .where(
      query.mintOnly
        ? sql<boolean>`(minted_supply = 0 AND max_supply > 0)`
        : sql<boolean>`((minted_supply = 0 AND max_supply > 0) OR held_supply > 0)`,
    );
  const ranges = query.ranges;
  if (ranges !== undefined) {
    select = select.where(({ or, and, eb }) =>
      or(
        ranges.map((r) =>
          and([eb('token_id', '>=', r.from.toString()), eb('token_id', '<=', r.to.toString())]),
        ),
      ),
    );
  }
  return select
    .orderBy(sql`token_id ASC NULLS LAST`)
    .orderBy('created_at')
    .orderBy('id')
    .limit(query.limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/**
 * Up to `limit` items the holder reserves (among `among` when given), lowest token id first,
 * their reservation rows locked; rows another transaction holds are passed over, so concurrent
 * callers take distinct items without waiting on each other.
 */
export async function lockHeldItems(
  db: Tx,
  holderId: string,
  limit: number,
  among?: readonly string[],
): Promise<string[]> {
  const { rows } = await sql<{ item_id: string }>`
    SELECT r.item_id FROM item_reservations r JOIN items i ON i.id = r.item_id
    WHERE r.holder_id = ${holderId} AND r.released_at IS NULL
      ${among === undefined ? sql`` : sql`AND r.item_id = ANY(${sql.val(among)}::uuid[])`}
    ORDER BY i.token_id NULLS LAST, i.id
    LIMIT ${limit}
    FOR UPDATE OF r SKIP LOCKED`.execute(db);
  return rows.map((r) => r.item_id);
}

/** Items a holder keeps reserved now, with the reserved quantity. */
export function itemsHeldBy(
  db: Executor,
  holderId: string,
): Promise<(ItemRow & { reserved_quantity: string })[]> {
  return db
    .selectFrom('item_reservations as r')
    .innerJoin('items', 'items.id', 'r.item_id')
    .selectAll('items')
    .select('r.quantity as reserved_quantity')
    .where('r.holder_id', '=', holderId)
    .where('r.released_at', 'is', null)
    .execute();
}
