import type { Executor } from '../../db/database.ts';
import type { CollectionRow } from '../../db/schema.ts';

export function findCollection(db: Executor, id: string): Promise<CollectionRow | undefined> {
  return db.selectFrom('collections').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The row locked until the end of the caller's transaction. */
export function findCollectionForUpdate(db: Executor, id: string): Promise<CollectionRow | undefined> {
  return db.selectFrom('collections').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
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
