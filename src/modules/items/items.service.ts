import type { Executor } from '../../db/database.ts';
import type { ItemRow } from '../../db/schema.ts';
import * as repo from './items.repository.ts';

export type { ItemRow } from '../../db/schema.ts';

export function findItem(db: Executor, id: string): Promise<ItemRow | undefined> {
  return repo.findItem(db, id);
}

/** The item holding `tokenId` in the collection (its token id is assigned at lock or mint). */
export function findItemByTokenId(
  db: Executor,
  collectionId: string,
  tokenId: bigint,
): Promise<ItemRow | undefined> {
  return repo.findItemByTokenId(db, collectionId, tokenId);
}
