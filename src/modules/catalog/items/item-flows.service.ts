import { type Address, getAddress } from 'viem';
import type { TokenType } from '../../../chain/capabilities.ts';
import { isUniqueViolation } from '../../../db/errors.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { CollectionRow, ItemReservationRow, ItemRow, ReservationKind } from '../../../db/schema.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { emitEvent } from '../../platform/webhooks/webhook-events.service.ts';
import * as repo from './item-flows.repository.ts';
import { type ItemSelection, MAX_ITEMS_PER_REQUEST } from './item-selection.ts';
import * as itemsRepo from './items.repository.ts';
import { toItem } from './items.service.ts';

/**
 * What moves items through the flows that hold them for a while (mint, transfer, listing, email
 * claim): choosing the items a request names, the reservation that keeps an item in one flow at
 * a time, and the token status and supply those flows change.
 */

export type ItemFlow = 'MINT' | 'TRANSFER';

export interface DeployedContract {
  address: Address;
  networkId: number;
  tokenType: TokenType;
  capabilities: readonly string[];
}

/** The contract a collection's tokens live in; mints and transfers need it deployed. */
export function deployedContractOf(collection: CollectionRow): DeployedContract {
  const { contract_address: address, network_id: networkId, token_type: tokenType } = collection;
  if (collection.deployment_status !== 'SUCCESS' || !address || networkId === null || !tokenType)
    throw new ApiError('INVALID_STATE', `collection ${collection.id} has no deployed contract`);
  return { address: getAddress(address), networkId, tokenType, capabilities: collection.capabilities };
}

/** Items by id, in no particular order (settlement reads the items of its requests). */
export function findItems(db: Executor, ids: readonly string[]): Promise<ItemRow[]> {
  return itemsRepo.findItems(db, ids);
}

/**
 * Locks the named items (id order) without the eligibility checks of lockFlowItems: for a holder
 * (an email claim) whose reservation already keeps them out of every other flow.
 */
export function lockItems(db: Tx, ids: readonly string[]): Promise<ItemRow[]> {
  return repo.lockItemsForUpdate(db, ids);
}

/** Which of the items an active reservation holds (one committed after the caller's snapshot too). */
async function reservedAmong(db: Executor, items: readonly ItemRow[]): Promise<Set<string>> {
  const reservations = await repo.activeReservations(
    db,
    items.map((i) => i.id),
  );
  return new Set(reservations.map((r) => r.item_id));
}

/** The holder of the item's active reservation, if any. */
export async function activeHolderOf(db: Executor, itemId: string): Promise<string | undefined> {
  const [reservation] = await repo.activeReservations(db, [itemId]);
  return reservation?.holder_id;
}

/**
 * Locks the items a named selector form gives (item ids, or token ids of the collection: each
 * must exist, else 404), and their order as named.
 */
async function lockNamedItems(
  db: Tx,
  collection: CollectionRow,
  selection: Extract<ItemSelection, { kind: 'items' | 'token_ids' }>,
): Promise<{ items: ItemRow[]; order: string[] }> {
  if (selection.kind === 'items')
    return { items: await repo.lockItemsForUpdate(db, selection.itemIds), order: selection.itemIds };
  const items = await repo.lockItemsByTokenIdForUpdate(db, collection.id, selection.tokenIds);
  const order = selection.tokenIds.map((tokenId) => {
    const item = items.find((i) => i.token_id === tokenId.toString());
    if (!item)
      throw new ApiError('NOT_FOUND', `no item of collection ${collection.id} has token id ${tokenId}`);
    return item.id;
  });
  return { items, order };
}

export interface FlowItemsRequest {
  collection: CollectionRow;
  flow: ItemFlow;
  selection: ItemSelection;
  /** Units per item. */
  quantity: bigint;
}

/**
 * Locks the items a mint or transfer takes, in the caller's transaction, and returns them in
 * creation order. Named items (item_id, item_ids, token_ids) must all qualify, else the request
 * fails; collection_id and token_ranges take the first 100 qualifying items and pass over the
 * rest, including items reserved or locked by a concurrent request.
 */
export async function lockFlowItems(db: Tx, request: FlowItemsRequest): Promise<ItemRow[]> {
  const { collection, flow, selection, quantity } = request;
  if (selection.kind === 'collection' || selection.kind === 'token_ranges') {
    const locked = await repo.lockEligibleItems(db, {
      collectionId: collection.id,
      flow,
      quantity,
      needsTokenId: collection.token_id_assignment_strategy !== 'EXTERNAL',
      ...(selection.kind === 'token_ranges' && { ranges: selection.ranges }),
      limit: MAX_ITEMS_PER_REQUEST,
    });
    // A reservation committed between the query's snapshot and its lock: pass over it too.
    const reserved = await reservedAmong(db, locked);
    return byCreation(locked.filter((i) => !reserved.has(i.id)));
  }

  const { items, order } = await lockNamedItems(db, collection, selection);
  const byId = new Map(items.map((i) => [i.id, i]));
  const reservations = new Map(
    (
      await repo.activeReservations(
        db,
        items.map((i) => i.id),
      )
    ).map((r) => [r.item_id, r]),
  );
  for (const id of order) {
    const item = byId.get(id);
    if (!item || item.collection_id !== collection.id)
      throw new ApiError('NOT_FOUND', `item ${id} not found`);
    assertEligible(collection, flow, item, quantity, reservations.get(id));
  }
  return byCreation(items);
}

function assertEligible(
  collection: CollectionRow,
  flow: ItemFlow,
  item: ItemRow,
  quantity: bigint,
  reservation: ItemReservationRow | undefined,
): void {
  // Mint rule: locked and not yet minted; transfer rule: locked and minted.
  if (!item.locked) throw new ApiError('ITEM_NOT_LOCKED', `item ${item.id} is not locked`);
  const minted = BigInt(item.minted_supply);
  if (flow === 'MINT') {
    // ERC-1155: "not yet minted" is supply left to mint (max_supply is set by the lock).
    const remaining = BigInt(item.max_supply ?? '0') - minted;
    if (remaining <= 0n) throw new ApiError('ITEM_ALREADY_MINTED', `item ${item.id} is minted`);
    if (quantity > remaining)
      throw new ApiError(
        'INSUFFICIENT_SUPPLY',
        `item ${item.id} has ${remaining} units left to mint, ${quantity} asked`,
      );
  } else if (minted === 0n) {
    throw new ApiError('ITEM_NOT_MINTED', `item ${item.id} is not minted`);
  }
  if (reservation !== undefined || item.token_status === 'MINTING')
    throw new ApiError(
      'ITEM_RESERVED',
      `item ${item.id} is held by ${reservation ? describeKind(reservation.kind) : 'a mint in progress'}`,
    );
  if (flow === 'MINT') {
    if (item.token_id === null && collection.token_id_assignment_strategy !== 'EXTERNAL')
      throw new ApiError('INVALID_STATE', `item ${item.id} has no token id`);
    return;
  }
  const held = BigInt(item.held_supply);
  if (held < quantity)
    throw new ApiError(
      'INVALID_STATE',
      held === 0n
        ? `item ${item.id} is not held by the organization wallet`
        : `the organization wallet holds ${held} units of item ${item.id}, ${quantity} asked`,
    );
}

function describeKind(kind: ReservationKind): string {
  switch (kind) {
    case 'MINT':
      return 'a mint request';
    case 'TRANSFER':
      return 'a transfer request';
    case 'LISTING':
      return 'a listing';
    case 'PURCHASE_INTENT':
      return 'a purchase';
    case 'EMAIL_CLAIM':
      return 'an email claim';
  }
}

/** Items in creation order (ties by id): the order requests take and list them in. */
export function byCreation<T extends Pick<ItemRow, 'id' | 'created_at'>>(items: readonly T[]): T[] {
  return [...items].sort(
    (a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * One new record id per item (items in creation order): the ids are sorted before they are given
 * out, so records created together (same created_at) list in the order of their items.
 */
export function requestIdsFor(items: readonly Pick<ItemRow, 'id'>[]): Map<string, string> {
  const ids = items.map(() => uuidv7()).sort();
  return new Map(items.map((item, i) => [item.id, ids[i]!]));
}

/**
 * Reserves items for a holder (a mint or transfer request, a listing, an email claim): one active
 * reservation per item, which the unique index enforces, so of two flows racing for one item
 * exactly one wins and the other fails ITEM_RESERVED. `holderId` and `quantities` are one value
 * for every item or one per item. Lock and check the items first (lockFlowItems): the index is the
 * last guard, and its violation aborts the transaction.
 */
export async function reserveItems(
  db: Executor,
  items: readonly Pick<ItemRow, 'id'>[],
  kind: ReservationKind,
  holderId: string | readonly string[],
  quantities: bigint | readonly bigint[],
  options: { expiresAt?: Date | null } = {},
): Promise<ItemReservationRow[]> {
  const at = <T>(value: T | readonly T[], i: number): T =>
    Array.isArray(value) ? (value as readonly T[])[i]! : (value as T);
  // A lapsed hold of an item (an email claim past its expiration) gives way.
  await repo.releaseLapsedReservations(
    db,
    items.map((item) => item.id),
  );
  try {
    return await repo.insertReservations(
      db,
      items.map((item, i) => ({
        id: uuidv7(),
        item_id: item.id,
        kind,
        holder_id: at(holderId, i),
        quantity: at(quantities, i),
        expires_at: options.expiresAt ?? null,
      })),
    );
  } catch (error) {
    if (isUniqueViolation(error, 'item_reservations_active_key'))
      throw new ApiError(
        'ITEM_RESERVED',
        'an item is held by another mint, transfer, listing or email claim',
      );
    throw error;
  }
}

/**
 * Passes the items' reservations held by `from` (a listing, an email claim) to new holders (the
 * records of a flow, a purchase intent), in one statement: no moment in which another flow could
 * take the items. Every item must be held by `from`, else ITEM_RESERVED and nothing moves (the
 * caller's transaction aborts).
 */
export async function moveReservations(
  db: Executor,
  move: {
    from: string;
    kind: ReservationKind;
    /** item id → its new holder. */
    to: ReadonlyMap<string, string>;
    expiresAt?: Date | null;
  },
): Promise<ItemReservationRow[]> {
  const moved = await repo.moveReservations(db, {
    from: move.from,
    kind: move.kind,
    to: [...move.to].map(([itemId, holderId]) => ({ itemId, holderId, id: uuidv7() })),
    expiresAt: move.expiresAt ?? null,
  });
  if (moved.length !== move.to.size)
    throw new ApiError('ITEM_RESERVED', `an item is no longer held by ${move.from}: it cannot be handed on`);
  return moved;
}

/** Ends the holders' active reservations (idempotent); returns the ids of the items freed. */
export function releaseReservations(db: Executor, holderId: string | readonly string[]): Promise<string[]> {
  return repo.releaseReservations(db, typeof holderId === 'string' ? [holderId] : holderId);
}

/** Ends one holder's active reservation of the given items (idempotent); returns the items freed. */
export function releaseItemReservations(
  db: Executor,
  holderId: string,
  itemIds: readonly string[],
): Promise<string[]> {
  return repo.releaseItemReservations(db, holderId, itemIds);
}

/**
 * A holder keeps its reservations with fewer units (an ended listing that still holds an item for
 * the email claims it covers).
 */
export function setReservedQuantity(db: Executor, holderId: string, quantity: bigint): Promise<void> {
  return repo.setReservedQuantity(db, holderId, quantity);
}

/** Items a mint is in flight for. */
export function markMinting(db: Executor, itemIds: readonly string[]): Promise<void> {
  return repo.setMinting(db, itemIds);
}

export interface MintOutcome {
  itemId: string;
  quantity: bigint;
  /** The units went to the organization's wallet. */
  toOrganizationWallet: boolean;
  /** The id the contract chose (EXTERNAL strategy), recorded when the item has none. */
  tokenId?: bigint | undefined;
}

/** A mint succeeded on-chain: MINTED, supply grown, held units counted. */
export async function completeMint(db: Executor, outcome: MintOutcome): Promise<void> {
  await repo.addMinted(
    db,
    outcome.itemId,
    outcome.quantity,
    outcome.toOrganizationWallet ? outcome.quantity : 0n,
    outcome.tokenId,
  );
  await emitItemEvent(db, outcome.itemId, 'item.minted');
}

/** A mint failed or was cancelled: the items are mintable again (or MINTED with earlier supply). */
export function abortMint(db: Executor, itemIds: readonly string[]): Promise<void> {
  return repo.revertMinting(db, itemIds);
}

/** A transfer succeeded on-chain: the units left the organization's wallet (unless sent to it). */
export async function completeTransfer(
  db: Executor,
  outcome: { itemId: string; quantity: bigint; toOrganizationWallet: boolean },
): Promise<void> {
  if (!outcome.toOrganizationWallet) await repo.changeHeld(db, outcome.itemId, -outcome.quantity);
  await emitItemEvent(db, outcome.itemId, 'item.transferred');
}

/** item.minted or item.transferred, with the item as the API shows it after the change. */
async function emitItemEvent(
  db: Executor,
  itemId: string,
  type: 'item.minted' | 'item.transferred',
): Promise<void> {
  const item = await itemsRepo.findItem(db, itemId);
  if (!item) return;
  await emitEvent(db, {
    organizationId: item.organization_id,
    type,
    resourceId: item.id,
    data: toItem(item),
  });
}

/** An item a listing takes, how many of its units it sells, and how they reach a buyer. */
export interface ListableItem {
  item: ItemRow;
  units: bigint;
  flow: ItemFlow;
}

/** Items a listing's collection_id or token_ranges form may take at most. */
export const MAX_ITEMS_PER_LISTING = 10_000;

/**
 * How a listing may sell an item (docs/api.md#listings): locked (ITEM_NOT_LOCKED), not reserved
 * nor being minted (ITEM_RESERVED), and either not minted (sold by minting: an ERC-1155 item's
 * remaining supply) or minted and held by the organization's wallet (sold by transfer; never for
 * mint vouchers, whose buyers mint): else ITEM_ALREADY_MINTED.
 */
export function listableUnits(
  collection: CollectionRow,
  item: ItemRow,
  reserved: boolean,
  mintOnly: boolean,
): ListableItem {
  if (!item.locked) throw new ApiError('ITEM_NOT_LOCKED', `item ${item.id} is not locked`);
  if (reserved || item.token_status === 'MINTING')
    throw new ApiError('ITEM_RESERVED', `item ${item.id} is held by another flow`);
  if (item.token_id === null && collection.token_id_assignment_strategy !== 'EXTERNAL')
    throw new ApiError('INVALID_STATE', `item ${item.id} has no token id`);
  const minted = BigInt(item.minted_supply);
  const mintable = BigInt(item.max_supply ?? '0') - minted;
  if (minted === 0n && mintable > 0n) return { item, units: mintable, flow: 'MINT' };
  if (mintOnly)
    throw new ApiError('ITEM_ALREADY_MINTED', `item ${item.id} is minted: mint vouchers sell unminted items`);
  const held = BigInt(item.held_supply);
  if (held > 0n) return { item, units: held, flow: 'TRANSFER' };
  throw new ApiError(
    'ITEM_ALREADY_MINTED',
    `item ${item.id} is minted and not held by the organization wallet`,
  );
}

/**
 * Locks the items a listing names and checks each (listableUnits): named forms (item_id,
 * item_ids, token_ids) fail on any ineligible item; collection_id and token_ranges take the
 * eligible ones, lowest token id first, up to MAX_ITEMS_PER_LISTING.
 */
export async function lockListableItems(
  db: Tx,
  collection: CollectionRow,
  selection: ItemSelection,
  options: { mintOnly: boolean },
): Promise<ListableItem[]> {
  if (selection.kind === 'collection' || selection.kind === 'token_ranges') {
    const locked = await repo.lockListableItems(db, {
      collectionId: collection.id,
      mintOnly: options.mintOnly,
      ...(selection.kind === 'token_ranges' && { ranges: selection.ranges }),
      limit: MAX_ITEMS_PER_LISTING,
    });
    const reserved = await reservedAmong(db, locked);
    return locked
      .filter((i) => !reserved.has(i.id))
      .map((item) => listableUnits(collection, item, false, options.mintOnly));
  }
  const { items, order } = await lockNamedItems(db, collection, selection);
  const byId = new Map(items.map((i) => [i.id, i]));
  const reserved = await reservedAmong(db, items);
  return order.map((id) => {
    const item = byId.get(id);
    if (!item || item.collection_id !== collection.id)
      throw new ApiError('NOT_FOUND', `item ${id} not found`);
    return listableUnits(collection, item, reserved.has(id), options.mintOnly);
  });
}

/**
 * `count` of the items a holder (a listing) reserves, their reservations locked for the caller
 * to move on, taken without waiting on another caller taking some at the same time: the lowest
 * token ids first, or with `pick`, the items it picks among those reserved (tried again while
 * others took some of them first). Fewer when the holder has fewer left.
 */
export async function takeHeldItems(
  db: Tx,
  holderId: string,
  count: number,
  pick?: (candidates: readonly string[], count: number) => string[],
): Promise<string[]> {
  if (pick === undefined) return repo.lockHeldItems(db, holderId, count);
  const taken: string[] = [];
  let candidates = (await repo.itemsHeldBy(db, holderId)).map((item) => item.id);
  while (taken.length < count && candidates.length > 0) {
    const picked = pick(candidates, count - taken.length);
    taken.push(...(await repo.lockHeldItems(db, holderId, picked.length, picked)));
    const tried = new Set(picked);
    candidates = candidates.filter((id) => !tried.has(id));
  }
  return taken;
}

/** The items a holder (a listing) still keeps reserved, with the units reserved. */
export async function itemsHeldBy(
  db: Executor,
  holderId: string,
): Promise<{ item: ItemRow; quantity: bigint }[]> {
  const rows = await repo.itemsHeldBy(db, holderId);
  return rows.map(({ reserved_quantity, ...item }) => ({
    item: item as ItemRow,
    quantity: BigInt(reserved_quantity),
  }));
}
