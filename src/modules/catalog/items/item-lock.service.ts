import { maxUint256 } from 'viem';
import { assertOrganizationAccess, type Principal } from '../../../access/principal.ts';
import { isUniqueViolation } from '../../../db/errors.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { CollectionRow, ItemRow } from '../../../db/schema.ts';
import { checkedUint256 } from '../../../http/inputs.ts';
import { ApiError } from '../../../lib/errors.ts';
import { lockCollectionRow, takeTokenIds } from '../collections/collections.service.ts';
import { byCreation } from './item-flows.service.ts';
import { type ItemSelection, parseItemSelection, type SelectorForm } from './item-selection.ts';
import * as repo from './items.repository.ts';
import { type LockItemsBody, type LockOutput, MAX_BULK_ITEMS } from './items.schemas.ts';

type Selection = Extract<ItemSelection, { kind: 'items' | 'collection' }>;

/** Lock rule 1: the items are named by item_id, item_ids or collection_id. */
const LOCK_FORMS: readonly SelectorForm[] = ['item_id', 'item_ids', 'collection_id'];

/**
 * Locks items: their supply and token id become fixed, and mint, transfer, listing and email
 * claims become possible. All or nothing, in the caller's transaction.
 *
 * Every lock of a collection first takes the collection row (FOR UPDATE), so locks of one
 * collection run one after the other: AUTOMATIC ids (taken from the collection's counter) are
 * unique and increase from one lock to the next and, within one lock, in item creation order,
 * with no gap; a MANUAL id is checked free by a lock that sees every earlier one (and the unique
 * index items_token_id_key stands behind the check).
 */
export async function lockItems(db: Tx, principal: Principal, body: LockItemsBody): Promise<LockOutput[]> {
  const selection = parseSelection(body);
  // Rule 4: a token id names one token, so it comes with a single item only.
  if (body.token_id != null && body.item_id == null) {
    throw invalid('/token_id', 'token_id may be given only when locking a single item (item_id)');
  }
  const collection = await lockCollectionOf(db, principal, selection);
  const tokenType = collection.token_type;
  const strategy = collection.token_id_assignment_strategy;
  if (tokenType === null || strategy === null) {
    throw new ApiError(
      'INVALID_STATE',
      `collection ${collection.id} has no deployment yet: its token type and token id assignment are unknown`,
    );
  }
  const maxSupply = maxSupplyOf(tokenType, body.max_supply ?? null);
  const manualTokenId = body.token_id != null ? checkedUint256(body.token_id, '/token_id') : null;
  // Rule 4: MANUAL needs the caller's token id; AUTOMATIC and EXTERNAL refuse one.
  if (strategy === 'MANUAL' && manualTokenId === null) {
    throw invalid(
      '/token_id',
      'the collection assigns token ids MANUAL: lock one item at a time (item_id) with its token_id',
    );
  }
  if (strategy !== 'MANUAL' && manualTokenId !== null) {
    throw invalid('/token_id', `the collection assigns token ids ${strategy}: token_id may not be given`);
  }

  if (selection.kind === 'collection') {
    // Rule 2: collection_id locks all remaining unlocked items; none left is no error.
    const first = strategy === 'AUTOMATIC' ? BigInt(collection.next_token_id) : null;
    const locked = await repo.lockUnlockedItemsOfCollection(db, collection.id, maxSupply, first);
    if (first !== null && locked.length > 0) {
      const last = locked.reduce(
        (max, row) => (BigInt(row.token_id!) > max ? BigInt(row.token_id!) : max),
        0n,
      );
      await takeIdsFrom(db, collection.id, first, last - first + 1n);
    }
    return locked.map(toLockOutput);
  }

  const items = await repo.findItemsForUpdate(db, selection.itemIds);
  assertSelectable(principal, collection, selection.itemIds, items);
  const alreadyLocked = items.filter((i) => i.locked);
  if (alreadyLocked.length > 0) {
    throw new ApiError(
      'ITEM_ALREADY_LOCKED',
      `already locked: item ${alreadyLocked
        .slice(0, 10)
        .map((i) => i.id)
        .join(', ')}${alreadyLocked.length > 10 ? ` and ${alreadyLocked.length - 10} more` : ''}`,
    );
  }
  const ordered = byCreation(items);
  let tokenIds: (bigint | null)[];
  switch (strategy) {
    case 'AUTOMATIC': {
      const first = await takeTokenIds(db, collection.id, BigInt(ordered.length));
      tokenIds = ordered.map((_, i) => first + BigInt(i));
      break;
    }
    case 'MANUAL': {
      const taken = await repo.findItemByTokenId(db, collection.id, manualTokenId!);
      if (taken) throw tokenIdTaken(collection, manualTokenId!);
      tokenIds = [manualTokenId];
      break;
    }
    case 'EXTERNAL':
      // The contract chooses the id at mint; it is recorded then.
      tokenIds = ordered.map(() => null);
      break;
  }
  try {
    const locked = await repo.lockItems(
      db,
      ordered.map((item, i) => ({ id: item.id, tokenId: tokenIds[i]! })),
      maxSupply,
    );
    if (locked.length !== ordered.length) throw new Error('lock: locked fewer items than it holds');
    return locked.map(toLockOutput);
  } catch (error) {
    if (isUniqueViolation(error, 'items_token_id_key')) {
      throw tokenIdTaken(collection, manualTokenId ?? tokenIds.find((t) => t !== null) ?? 0n);
    }
    throw error;
  }
}

/** Rule 1: exactly one of item_id, item_ids, collection_id (lists as long as a bulk create). */
function parseSelection(body: LockItemsBody): Selection {
  return parseItemSelection(body, { forms: LOCK_FORMS, maxItems: MAX_BULK_ITEMS }) as Selection;
}

/** The collection of the selection, locked (FOR UPDATE) until the transaction ends. */
async function lockCollectionOf(db: Tx, principal: Principal, selection: Selection): Promise<CollectionRow> {
  if (selection.kind === 'collection') {
    return lockCollectionRow(db, principal, selection.collectionId);
  }
  // The first item names the collection; assertSelectable checks every item against it.
  const first = await repo.findItem(db, selection.itemIds[0]!);
  if (!first) throw new ApiError('NOT_FOUND', `item ${selection.itemIds[0]} not found`);
  assertOrganizationAccess(principal, first.organization_id, `item ${first.id}`);
  return lockCollectionRow(db, principal, first.collection_id);
}

/** Named items must all exist (404, also for another organization's) and share one collection. */
function assertSelectable(
  principal: Principal,
  collection: CollectionRow,
  ids: readonly string[],
  items: readonly ItemRow[],
): void {
  const byId = new Map(items.map((i) => [i.id, i]));
  for (const id of ids) {
    const item = byId.get(id);
    if (!item) throw new ApiError('NOT_FOUND', `item ${id} not found`);
    assertOrganizationAccess(principal, item.organization_id, `item ${id}`);
  }
  const elsewhere = ids.findIndex((id) => byId.get(id)!.collection_id !== collection.id);
  if (elsewhere >= 0) {
    throw invalid(
      `/item_ids/${elsewhere}`,
      'all items of one lock must belong to one collection: this one belongs to another',
    );
  }
}

/** Rule 3: ERC721 always 1; ERC1155 above 0, by default 2^256-1. */
function maxSupplyOf(tokenType: 'ERC721' | 'ERC1155', input: string | null): bigint {
  if (tokenType === 'ERC721') {
    if (input !== null && input !== '1') throw invalid('/max_supply', 'an ERC721 token has max_supply 1');
    return 1n;
  }
  if (input === null) return maxUint256;
  const value = checkedUint256(input, '/max_supply');
  if (value === 0n) throw invalid('/max_supply', 'max_supply must be above 0');
  return value;
}

/** Advances the collection's counter past the ids a collection-wide lock assigned from `first`. */
async function takeIdsFrom(db: Executor, collectionId: string, first: bigint, count: bigint): Promise<void> {
  const taken = await takeTokenIds(db, collectionId, count);
  // The collection row is locked since it was read: nobody else can have moved the counter.
  if (taken !== first) throw new Error(`token id counter of ${collectionId} moved under its lock`);
}

function toLockOutput(row: repo.LockedItem): LockOutput {
  return { item_id: row.id, max_supply: row.max_supply, token_id: row.token_id };
}

function tokenIdTaken(collection: CollectionRow, tokenId: bigint): ApiError {
  return new ApiError('ALREADY_EXISTS', `token id ${tokenId} is taken in collection ${collection.id}`);
}

function invalid(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', message, { fields: [{ path, message }] });
}
