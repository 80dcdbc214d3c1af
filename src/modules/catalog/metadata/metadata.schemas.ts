import { type Static, Type } from '@sinclair/typebox';
import { Uint256 } from '../../../http/schemas.ts';

/**
 * The collection id is not checked as a UUID by the schema: these URLs are fetched by indexers
 * and wallets, and a collection that does not exist is a 404 whatever its id looks like.
 */
const CollectionIdParam = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'The collection id (UUID)',
});

export const TokenMetadataParams = Type.Object(
  { collection_id: CollectionIdParam, token_id: { ...Uint256, description: 'The token id, decimal' } },
  { additionalProperties: false },
);
export type TokenMetadataParams = Static<typeof TokenMetadataParams>;

export const ContractMetadataParams = Type.Object(
  { collection_id: CollectionIdParam },
  { additionalProperties: false },
);
export type ContractMetadataParams = Static<typeof ContractMetadataParams>;

export const Trait = Type.Object(
  {
    trait_type: Type.String({ description: 'The attribute name' }),
    value: Type.Unknown({ description: 'The attribute value as stored (objects and arrays as JSON)' }),
  },
  { title: 'Trait' },
);
export type Trait = Static<typeof Trait>;

export const TokenMetadata = Type.Object(
  {
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    image: Type.Optional(Type.String()),
    attributes: Type.Optional(Type.Array(Trait)),
  },
  {
    title: 'TokenMetadata',
    additionalProperties: true,
    description:
      "ERC-721/ERC-1155 metadata JSON. Revealed: name (the item's name attribute, else \"<collection name> #<token id>\"), description and image (the item's attributes of those names, when strings), attributes (every other attribute as {trait_type, value}). While a DELAYED collection's reveal_hidden is true: the collection's preview_metadata, as stored, for every minted token.",
  },
);
export type TokenMetadata = Static<typeof TokenMetadata>;

export const ContractMetadata = Type.Object(
  {
    name: Type.String(),
    symbol: Type.Optional(Type.String()),
    image: Type.Optional(Type.String({ description: "The collection's image_url" })),
    seller_fee_basis_points: Type.Optional(
      Type.Integer({ description: 'royalty_info.amount_bps (OpenSea convention)' }),
    ),
    fee_recipient: Type.Optional(
      Type.String({ description: 'royalty_info.receiver, EIP-55 checksummed (OpenSea convention)' }),
    ),
  },
  {
    title: 'ContractMetadata',
    description: 'Contract-level metadata (ERC-7572 contractURI, OpenSea collection metadata)',
  },
);
export type ContractMetadata = Static<typeof ContractMetadata>;
