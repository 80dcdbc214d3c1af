import { isDeepStrictEqual } from 'node:util';
import { assertOrganizationAccess, type Principal } from '../../../access/principal.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { CollectionRow, ItemRow, ItemTypeRow, RoyaltyInfo } from '../../../db/schema.ts';
import { checkedAddress, checkedUint256 } from '../../../http/inputs.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError, type FieldError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { findCollection, getCollectionRow } from '../collections/collections.service.ts';
import { itemTypesForItemWrites, validateAttributes } from '../item-types/item-types.service.ts';
import * as repo from './items.repository.ts';
import type { BulkCreateItemsBody, CreateItemBody, EditItemBody, Item, ItemStatus } from './items.schemas.ts';

export type { ItemRow } from '../../../db/schema.ts';

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

export function toItem(row: ItemRow): Item {
  return {
    id: row.id,
    collection_id: row.collection_id,
    item_type_id: row.item_type_id,
    attributes: row.attributes,
    locked: row.locked,
    max_supply: row.max_supply,
    token_id: row.token_id,
    token_status: row.token_status,
    media: itemMedia(row.attributes),
    royalty_info: row.royalty_info,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/**
 * The named items, in no particular order, each of which exists and is `principal`'s to see: the
 * first that is not answers NOT_FOUND naming it (another organization's item never shows).
 */
export async function assertItemsOfOrganization(
  db: Executor,
  principal: Principal,
  ids: readonly string[],
): Promise<ItemRow[]> {
  const items = await repo.findItems(db, ids);
  for (const id of ids) {
    const item = items.find((i) => i.id === id);
    if (!item) throw new ApiError('NOT_FOUND', `item ${id} not found`);
    assertOrganizationAccess(principal, item.organization_id, `item ${id}`);
  }
  return items;
}

export async function getItem(db: Executor, principal: Principal, id: string): Promise<ItemRow> {
  const row = await repo.findItem(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'item not found');
  assertOrganizationAccess(principal, row.organization_id, 'item');
  return row;
}

/** Minted, or a mint in flight: its metadata may be on-chain already. */
function everMinted(item: ItemRow): boolean {
  return item.token_status !== 'NOT_MINTED' || BigInt(item.minted_supply) > 0n;
}

// ---- Create ----

export async function createItem(db: Tx, principal: Principal, body: CreateItemBody): Promise<ItemRow> {
  const [id] = await createItems(db, principal, [body], '');
  return (await repo.findItem(db, id!))!;
}

export async function bulkCreateItems(
  db: Tx,
  principal: Principal,
  body: BulkCreateItemsBody,
): Promise<string[]> {
  return createItems(db, principal, body.items, '/items');
}

/**
 * Creates items all or nothing: each collection and item type read once, each schema compiled
 * once, the rows written a few thousand per statement. Ids are UUIDv7 handed out in request
 * order, so creation order (created_at, id) is the order of the request.
 * Errors name each item by `prefix/<index>` (bulk) or the body itself (prefix '').
 */
async function createItems(
  db: Tx,
  principal: Principal,
  bodies: readonly CreateItemBody[],
  prefix: string,
): Promise<string[]> {
  const at = (i: number) => (prefix === '' ? '' : `${prefix}/${i}`);
  const collections = new Map<string, CollectionRow>();
  for (const id of new Set(bodies.map((b) => b.collection_id))) {
    collections.set(id, await getCollectionRow(db, principal, id));
  }
  const typeIdOf = (body: CreateItemBody) =>
    body.item_type_id ?? collections.get(body.collection_id)!.default_item_type_id;
  const types = await itemTypesForItemWrites(
    db,
    bodies.map(typeIdOf).filter((id): id is string => id !== null),
  );

  const typeErrors: FieldError[] = [];
  bodies.forEach((body, i) => {
    const typeId = typeIdOf(body);
    if (typeId === null) return;
    const collection = collections.get(body.collection_id)!;
    const problem = itemTypeProblem(types.get(typeId), collection);
    if (problem) typeErrors.push({ path: `${at(i)}/item_type_id`, message: problem });
  });
  if (typeErrors.length > 0) {
    throw new ApiError('VALIDATION_FAILED', 'an item type is unknown or of another organization', {
      fields: typeErrors.slice(0, 100),
    });
  }

  const schemaErrors: FieldError[] = [];
  for (const [i, body] of bodies.entries()) {
    const typeId = typeIdOf(body);
    if (typeId === null) continue;
    schemaErrors.push(...validateAttributes(types.get(typeId)!, body.attributes, `${at(i)}/attributes`));
    if (schemaErrors.length >= 100) break;
  }
  if (schemaErrors.length > 0) throw schemaValidationFailed(schemaErrors.slice(0, 100));

  const ids = newIdsInOrder(bodies.length);
  await repo.insertItems(
    db,
    bodies.map((body, i) => ({
      id: ids[i]!,
      organization_id: collections.get(body.collection_id)!.organization_id,
      collection_id: body.collection_id,
      item_type_id: typeIdOf(body),
      attributes: body.attributes,
    })),
  );
  return ids;
}

/** UUIDv7s in increasing order: within one millisecond their random bits would not be. */
function newIdsInOrder(count: number): string[] {
  return Array.from({ length: count }, () => uuidv7()).sort();
}

/** Why an item of `collection` cannot use `itemType` (unknown, another organization's), if so. */
function itemTypeProblem(itemType: ItemTypeRow | undefined, collection: CollectionRow): string | undefined {
  if (!itemType || itemType.organization_id !== collection.organization_id)
    return "no item type with this id in the collection's organization";
  return undefined;
}

function schemaValidationFailed(fields: FieldError[]): ApiError {
  return new ApiError('SCHEMA_VALIDATION_FAILED', "the attributes do not match the item type's json_schema", {
    fields,
  });
}

// ---- Edit, delete ----

/**
 * Update rules: attributes replace every attribute and must validate
 * against the (new) item type's schema (422); once minted (or minting) attribute changes are
 * refused (409 ITEM_ALREADY_MINTED) unless the collection has editable_metadata.
 */
export async function editItem(
  db: Tx,
  principal: Principal,
  id: string,
  body: EditItemBody,
): Promise<ItemRow> {
  const item = await repo.findItemForUpdate(db, id);
  if (!item) throw new ApiError('NOT_FOUND', 'item not found');
  assertOrganizationAccess(principal, item.organization_id, 'item');

  const attributes = body.attributes ?? item.attributes;
  const attributesChange = body.attributes != null && !isDeepStrictEqual(body.attributes, item.attributes);
  const itemTypeId = body.item_type_id !== undefined ? body.item_type_id : item.item_type_id;
  const typeChange = itemTypeId !== item.item_type_id;
  const collection = await findCollection(db, item.collection_id);
  if (!collection) throw new Error(`item ${item.id} has no collection`);

  if (attributesChange && everMinted(item) && !collection.editable_metadata) {
    throw new ApiError(
      'ITEM_ALREADY_MINTED',
      `item ${item.id} is minted: its attributes may change only in a collection with editable_metadata`,
    );
  }
  if ((attributesChange || typeChange) && itemTypeId !== null) {
    const itemType = (await itemTypesForItemWrites(db, [itemTypeId])).get(itemTypeId);
    const problem = itemTypeProblem(itemType, collection);
    if (problem) {
      throw new ApiError('VALIDATION_FAILED', 'item_type_id is unknown or of another organization', {
        fields: [{ path: '/item_type_id', message: problem }],
      });
    }
    const errors = validateAttributes(itemType!, attributes, '/attributes');
    if (errors.length > 0) throw schemaValidationFailed(errors);
  }

  const patch: repo.ItemPatch = {};
  if (attributesChange) patch.attributes = attributes;
  if (typeChange) patch.item_type_id = itemTypeId;
  if (body.royalty_info !== undefined) patch.royalty_info = royaltyInfo(body.royalty_info);
  if (Object.keys(patch).length === 0) return item;
  return repo.updateItem(db, id, patch);
}

function royaltyInfo(input: RoyaltyInfo | null): RoyaltyInfo | null {
  if (input === null) return null;
  return { receiver: checkedAddress(input.receiver, '/royalty_info/receiver'), amount_bps: input.amount_bps };
}

/**
 * Only an item never minted (nor minting) and not held by a flow may go. An item with a
 * history (a failed mint request, a past listing or claim) stays: its records point at it.
 */
export async function deleteItem(db: Tx, principal: Principal, id: string): Promise<void> {
  const item = await repo.findItemForUpdate(db, id);
  if (!item) throw new ApiError('NOT_FOUND', 'item not found');
  assertOrganizationAccess(principal, item.organization_id, 'item');
  if (everMinted(item)) throw new ApiError('ITEM_ALREADY_MINTED', `item ${item.id} was minted`);
  if (await repo.hasActiveReservation(db, item.id)) {
    throw new ApiError(
      'ITEM_RESERVED',
      `item ${item.id} is held by a mint, transfer, listing or email claim`,
    );
  }
  try {
    await repo.deleteItem(db, item.id);
  } catch (error) {
    if ((error as { code?: string }).code === '23503') {
      throw new ApiError(
        'INVALID_STATE',
        `item ${item.id} has records (mint or transfer requests, listings, claims) that refer to it`,
      );
    }
    throw error;
  }
}

// ---- List, status ----

export interface ListItemsFilters {
  collection_id: string;
  token_id?: string | undefined;
  attributes?: string[] | undefined;
  locked?: boolean | undefined;
}

export async function listItems(
  db: Executor,
  principal: Principal,
  page: PageParams,
  filters: ListItemsFilters,
): Promise<PageResult<ItemRow>> {
  await getCollectionRow(db, principal, filters.collection_id);
  if (filters.token_id !== undefined) checkedUint256(filters.token_id, 'querystring:/token_id');
  return repo.listItems(db, page, {
    collection_id: filters.collection_id,
    token_id: filters.token_id,
    locked: filters.locked,
    attributes: filters.attributes?.map((entry, i) => attributeFilter(entry, i)),
  });
}

// Text forms of JSON numbers and booleans as `->>` prints them (numbers never with an exponent).
const JSON_SCALAR_TEXT = /^(-?(0|[1-9][0-9]*)(\.[0-9]+)?|true|false)$/;
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * `name:value` (split at the first ':'). An attribute whose text is `value` is either the string
 * `value`, or, when `value` reads as a JSON number or boolean, that number or boolean; objects and
 * arrays print as JSON and are matched by text alone (no index).
 */
function attributeFilter(entry: string, index: number): repo.AttributeFilter {
  const colon = entry.indexOf(':');
  const name = entry.slice(0, colon);
  const value = entry.slice(colon + 1);
  if (LONE_SURROGATE.test(entry)) {
    throw new ApiError('VALIDATION_FAILED', 'attributes entries must be valid Unicode', {
      fields: [{ path: `querystring:/attributes/${index}`, message: 'is not valid Unicode' }],
    });
  }
  if (value.startsWith('{') || value.startsWith('[')) return { name, value, containment: [] };
  const containment = [JSON.stringify({ [name]: value })];
  if (JSON_SCALAR_TEXT.test(value)) containment.push(`{${JSON.stringify(name)}:${value}}`);
  return { name, value, containment };
}

export async function itemStatus(db: Executor, principal: Principal, id: string): Promise<ItemStatus> {
  const item = await getItem(db, principal, id);
  const status = await repo.itemStatus(db, item.id);
  return {
    email_claim_ids: status.email_claim_ids,
    listing_ids: status.listing_ids,
    mint_request_ids: status.mint_request_ids,
    transfer_request_ids: status.transfer_request_ids,
    reservations: { mint: Number(status.reserved_mint), transfer: Number(status.reserved_transfer) },
    supply: { current: item.minted_supply, total: item.max_supply },
  };
}
