import { type Static, Type } from '@sinclair/typebox';
import { TOKEN_STATUSES } from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, EthAddress, Nullable, StringEnum, Uint256, Uuid } from '../../../http/schemas.ts';

/** Items a bulk create or a lock by item_ids may name (docs/api.md#limits). */
export const MAX_BULK_ITEMS = 10_000;

const Attributes = Type.Object(
  {},
  {
    additionalProperties: true,
    description: "The item's attributes; valid against its item type's json_schema when it has one",
  },
);

export const RoyaltyInfoInput = Type.Object(
  {
    receiver: EthAddress,
    amount_bps: Type.Integer({ minimum: 0, maximum: 10000, description: 'Basis points (ERC-2981)' }),
  },
  { additionalProperties: false },
);

export const Item = Type.Object(
  {
    id: Uuid,
    collection_id: Uuid,
    item_type_id: Nullable(Uuid),
    attributes: Attributes,
    locked: Type.Boolean(),
    max_supply: Nullable(Uint256),
    token_id: Nullable(Uint256),
    token_status: StringEnum(TOKEN_STATUSES),
    media: Type.Object({
      image: Nullable(Type.String({ description: 'The image URL served in token metadata' })),
    }),
    royalty_info: Nullable(Type.Object({ receiver: Type.String(), amount_bps: Type.Integer() })),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'Item', title: 'Item' },
);
export type Item = Static<typeof Item>;

export const CreateItemBody = Type.Object(
  {
    attributes: Attributes,
    collection_id: Uuid,
    item_type_id: Type.Optional(
      Nullable({
        ...Uuid,
        description: "Absent or null: the collection's default_item_type_id (none: attributes are free)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateItemBody = Static<typeof CreateItemBody>;

export const BulkCreateItemsBody = Type.Object(
  { items: Type.Array(CreateItemBody, { minItems: 1, maxItems: MAX_BULK_ITEMS }) },
  { additionalProperties: false },
);
export type BulkCreateItemsBody = Static<typeof BulkCreateItemsBody>;

export const BulkCreateItemsResponse = Type.Object(
  { item_ids: Type.Array(Uuid, { description: 'In the order of the request items' }) },
  { title: 'BulkCreateItemsResult' },
);

export const EditItemBody = Type.Object(
  {
    attributes: Type.Optional(
      Nullable({ ...Attributes, description: 'Replaces every attribute; absent or null keeps them' }),
    ),
    item_type_id: Type.Optional(
      Nullable({ ...Uuid, description: 'Absent keeps the item type; null removes it' }),
    ),
    royalty_info: Type.Optional(
      Nullable({ ...RoyaltyInfoInput, description: 'Absent keeps it; null clears it' }),
    ),
  },
  { additionalProperties: false },
);
export type EditItemBody = Static<typeof EditItemBody>;

export const ItemParams = Type.Object({ item_id: Uuid }, { additionalProperties: false });

export const ListItemsQuery = Type.Object(
  {
    ...listQueryProperties('medium'),
    collection_id: Uuid,
    token_id: Type.Optional(Uint256),
    attributes: Type.Optional(
      Type.Array(
        Type.String({
          // name:value, the name before the first ':' (never empty); no NUL, which no JSON text holds.
          pattern: '^[^:\\x00]+:[^\\x00]*$',
          maxLength: 1000,
          description: 'name:value',
        }),
        {
          maxItems: 50,
          description:
            'Repeat for several (all must match): an item matches name:value when its attribute `name`, as text, equals value (strings as they are, numbers and booleans in their JSON form)',
        },
      ),
    ),
    locked: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const LockItemsBody = Type.Object(
  {
    collection_id: Type.Optional(
      Nullable({ ...Uuid, description: 'Lock every item of the collection not locked yet' }),
    ),
    item_id: Type.Optional(Nullable({ ...Uuid, description: 'Lock one item' })),
    item_ids: Type.Optional(
      Nullable(
        Type.Array(Uuid, {
          minItems: 1,
          maxItems: MAX_BULK_ITEMS,
          uniqueItems: true,
          description: 'Lock these items, all of one collection and all unlocked',
        }),
      ),
    ),
    max_supply: Type.Optional(
      Nullable({
        ...Uint256,
        description: 'ERC721: 1 (the default). ERC1155: above 0, default 2^256-1',
      }),
    ),
    token_id: Type.Optional(
      Nullable({
        ...Uint256,
        description: 'Only with item_id, and required then, for a MANUAL collection; free in the collection',
      }),
    ),
  },
  { additionalProperties: false },
);
export type LockItemsBody = Static<typeof LockItemsBody>;

export const LockOutput = Type.Object({
  item_id: Uuid,
  max_supply: Uint256,
  token_id: Nullable({ ...Uint256, description: 'Null for EXTERNAL assignment until mint' }),
});
export type LockOutput = Static<typeof LockOutput>;

export const LockItemsResponse = Type.Object(
  { lock_outputs: Type.Array(LockOutput, { description: 'In item creation order' }) },
  { title: 'LockItemsResult' },
);

export const ItemStatus = Type.Object(
  {
    email_claim_ids: Type.Array(Uuid),
    listing_ids: Type.Array(Uuid),
    mint_request_ids: Type.Array(Uuid),
    transfer_request_ids: Type.Array(Uuid),
    reservations: Type.Object({
      mint: Type.Integer({ description: 'Units held by the active MINT reservation' }),
      transfer: Type.Integer({ description: 'Units held by the active TRANSFER reservation' }),
    }),
    supply: Type.Object({
      current: { ...Uint256, description: 'Units minted so far' },
      total: Nullable({ ...Uint256, description: 'max_supply; null while the item is unlocked' }),
    }),
  },
  { title: 'ItemStatus' },
);
export type ItemStatus = Static<typeof ItemStatus>;
