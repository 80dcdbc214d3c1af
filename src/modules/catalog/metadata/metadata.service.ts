import { createHash } from 'node:crypto';
import type { Executor } from '../../../db/executor.ts';
import { checkedUint256 } from '../../../http/inputs.ts';
import { parseAddress } from '../../../lib/address.ts';
import { ApiError } from '../../../lib/errors.ts';
import { itemMedia } from '../items/items.service.ts';
import * as repo from './metadata.repository.ts';
import type { ContractMetadata, TokenMetadata, Trait } from './metadata.schemas.ts';

/**
 * Where the contracts point (contracts/README.md): a token's URI is the base URI followed by the
 * decimal token id, so every deployment passes these to the constructor.
 */
export function tokenMetadataBaseUri(publicBaseUrl: string, collectionId: string): string {
  return `${publicBaseUrl}/v1/metadata/${collectionId}/`;
}

export function contractMetadataUri(publicBaseUrl: string, collectionId: string): string {
  return `${publicBaseUrl}/v1/metadata/${collectionId}`;
}

/** A metadata document as served: the JSON text, its validator and how long caches may keep it. */
export interface MetadataDocument {
  json: string;
  etag: string;
  cacheControl: string;
}

/** Revealed metadata changes rarely (an item edit): a minute of caching spares the database. */
const REVEALED_CACHE = 'public, max-age=60';
/** Hidden metadata must not outlive the reveal: caches revalidate every time. */
const HIDDEN_CACHE = 'no-store';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function document(body: unknown, cacheControl: string): MetadataDocument {
  const json = JSON.stringify(body);
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
  return { json, etag, cacheControl };
}

/**
 * The ERC-721/ERC-1155 metadata JSON of an item: `name` is its name attribute (else
 * "<collection> #<id>"), `description` and `image` its attributes of those names when strings
 * (image through itemMedia), and every other attribute a trait {trait_type, value}, its value as
 * stored (numbers stay numbers, objects and arrays stay JSON). Null attributes are left out.
 * Traits are ordered by name: jsonb keeps no insertion order, and a stable body keeps its ETag.
 */
export function tokenMetadataOf(
  collectionName: string,
  tokenId: string,
  attributes: Record<string, unknown>,
): TokenMetadata {
  const { image } = itemMedia(attributes);
  const name = typeof attributes.name === 'string' ? attributes.name : undefined;
  const description = typeof attributes.description === 'string' ? attributes.description : undefined;
  const promoted = new Set<string>();
  if (name !== undefined) promoted.add('name');
  if (description !== undefined) promoted.add('description');
  if (image !== null) promoted.add('image');
  const traits: Trait[] = Object.entries(attributes)
    .filter(([key, value]) => !promoted.has(key) && value !== null && value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ trait_type: key, value }));
  return {
    name: name ?? `${collectionName} #${tokenId}`,
    ...(description !== undefined && { description }),
    ...(image !== null && { image }),
    attributes: traits,
  };
}

function checkTokenId(tokenId: string): void {
  checkedUint256(tokenId, 'params:/token_id');
}

/**
 * Token metadata (the contracts' tokenURI/uri): only for minted tokens, so nothing leaks before
 * a mint. While a DELAYED collection hides its reveal, every minted token shows the collection's
 * preview_metadata as stored, and caches are told not to keep it, so the reveal shows at once.
 */
export async function getTokenMetadata(
  db: Executor,
  collectionId: string,
  tokenId: string,
): Promise<MetadataDocument> {
  checkTokenId(tokenId);
  const token = UUID.test(collectionId) ? await repo.findMintedToken(db, collectionId, tokenId) : undefined;
  if (!token) throw new ApiError('NOT_FOUND', `no minted token ${tokenId} in collection ${collectionId}`);
  if (token.reveal_strategy === 'DELAYED' && token.reveal_hidden) {
    const preview = token.preview_metadata ?? { name: `${token.collection_name} #${tokenId}` };
    return document(preview, HIDDEN_CACHE);
  }
  return document(tokenMetadataOf(token.collection_name, tokenId, token.attributes), REVEALED_CACHE);
}

/** Contract metadata (ERC-7572 contractURI, with OpenSea's royalty fields when royalty_info is set). */
export async function getContractMetadata(db: Executor, collectionId: string): Promise<MetadataDocument> {
  const collection = UUID.test(collectionId)
    ? await repo.findCollectionMetadata(db, collectionId)
    : undefined;
  if (!collection) throw new ApiError('NOT_FOUND', `collection ${collectionId} not found`);
  const royalty = collection.royalty_info;
  const body: ContractMetadata = {
    name: collection.name,
    ...(collection.symbol !== null && { symbol: collection.symbol }),
    ...(collection.image_url !== null && { image: collection.image_url }),
    ...(royalty !== null && {
      seller_fee_basis_points: royalty.amount_bps,
      fee_recipient: parseAddress(royalty.receiver) ?? royalty.receiver,
    }),
  };
  return document(body, REVEALED_CACHE);
}
