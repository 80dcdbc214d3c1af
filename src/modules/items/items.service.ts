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

export interface ItemMedia {
  image: string | null;
}

/**
 * An item's media, read from its attributes: `image` when it is a string (the URL served as the
 * token metadata's `image`), else null.
 */
export function itemMedia(attributes: Record<string, unknown>): ItemMedia {
  const image = attributes.image;
  return { image: typeof image === 'string' ? image : null };
}
