import type { Executor } from '../../../db/executor.ts';

/**
 * A minted token and what its metadata needs from its collection, in one indexed query (the
 * partial unique index on items (collection_id, token_id)): indexers fetch these by the
 * thousand. ERC-1155 items count as minted once any supply exists.
 */
export function findMintedToken(db: Executor, collectionId: string, tokenId: string) {
  return db
    .selectFrom('items')
    .innerJoin('collections', 'collections.id', 'items.collection_id')
    .select([
      'items.attributes',
      'collections.name as collection_name',
      'collections.reveal_strategy',
      'collections.reveal_hidden',
      'collections.preview_metadata',
    ])
    .where('items.collection_id', '=', collectionId)
    .where('items.token_id', '=', tokenId)
    .where((eb) => eb.or([eb('items.token_status', '=', 'MINTED'), eb('items.minted_supply', '>', '0')]))
    .executeTakeFirst();
}

export function findCollectionMetadata(db: Executor, collectionId: string) {
  return db
    .selectFrom('collections')
    .select(['name', 'symbol', 'image_url', 'royalty_info'])
    .where('id', '=', collectionId)
    .executeTakeFirst();
}
