import type { Executor } from '../../db/database.ts';
import type { ItemRow } from '../../db/schema.ts';

export function findItem(db: Executor, id: string): Promise<ItemRow | undefined> {
  return db.selectFrom('items').selectAll().where('id', '=', id).executeTakeFirst();
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
