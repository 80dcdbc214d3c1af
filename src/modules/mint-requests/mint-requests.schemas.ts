import { type Static, Type } from '@sinclair/typebox';
import { REQUEST_STATES } from '../../db/enums.ts';
import { listQueryProperties } from '../../http/pagination.ts';
import { DateTime, EthAddress, Nullable, StringEnum, Uint256, Uuid } from '../../http/schemas.ts';

/** Mint and transfer requests mirror their transaction (API.md §4). */
export const RequestState = StringEnum(REQUEST_STATES, {
  description:
    'PENDING while the transaction waits to be sent, SUBMITTED once broadcast, COMPLETED when it succeeded on-chain, FAILED when it reverted or was cancelled (the reservation is then released)',
});

const TokenRange = Type.Object(
  {
    from_id: { ...Uint256, description: 'First token id, inclusive' },
    to_id: { ...Uint256, description: 'Last token id, inclusive (at least from_id)' },
  },
  { additionalProperties: false },
);

/**
 * The body of a mint or a transfer request (SERVICE-SPEC Group D: the same for both). Exactly one
 * selector form: item_id | item_ids | collection_id | collection_id + token_ids |
 * collection_id + token_ranges.
 */
export const TokenRequestBody = Type.Object(
  {
    to_address: { ...EthAddress, description: `Receives the tokens. ${EthAddress.description}` },
    item_id: Type.Optional(Nullable(Uuid)),
    item_ids: Type.Optional(
      Nullable(
        Type.Array(Uuid, {
          minItems: 1,
          uniqueItems: true,
          description: 'At most 100, all of one collection',
        }),
      ),
    ),
    collection_id: Type.Optional(
      Nullable({
        ...Uuid,
        description:
          'Alone: the first 100 qualifying items of the collection (creation order), reserved and ineligible items passed over. With token_ids or token_ranges: the collection the token ids belong to.',
      }),
    ),
    token_ids: Type.Optional(
      Nullable(
        Type.Array(Uint256, {
          minItems: 1,
          uniqueItems: true,
          description: 'With collection_id: items named by token id; at most 100; each must qualify',
        }),
      ),
    ),
    token_ranges: Type.Optional(
      Nullable(
        Type.Array(TokenRange, {
          minItems: 1,
          description:
            'With collection_id: inclusive ranges of token ids covering at most 100 ids; the qualifying items in them are taken, the others passed over',
        }),
      ),
    ),
    quantity: Type.Optional(
      Nullable({ ...Uint256, description: 'Units per item; default 1; ERC721 only 1' }),
    ),
  },
  { additionalProperties: false },
);
export type TokenRequestBody = Static<typeof TokenRequestBody>;

/** The fields mint and transfer request records share (their quantity differs in type). */
export const TOKEN_REQUEST_FIELDS = {
  id: Uuid,
  item_id: Uuid,
  collection_id: Uuid,
  token_id: Nullable({ ...Uint256, description: 'Null until minted for EXTERNAL token ids' }),
  state: RequestState,
  to_address: { ...EthAddress, description: 'The receiving address, checksummed' },
  transaction_id: { ...Uuid, description: 'Several records may share one (batch in one transaction)' },
  tx_hash: Nullable(Type.String({ description: 'Null until the transaction is broadcast' })),
  failure_reason: Nullable(Type.String({ description: 'Why it FAILED' })),
  created_at: DateTime,
};

export const MintRequest = Type.Object(
  { ...TOKEN_REQUEST_FIELDS, quantity: { ...Uint256, description: 'Units minted' } },
  { $id: 'MintRequest', title: 'MintRequest' },
);
export type MintRequest = Static<typeof MintRequest>;

export const MintRequests = Type.Object(
  { mint_requests: Type.Array(Type.Ref(MintRequest), { description: 'One record per item' }) },
  { title: 'MintRequests' },
);

/** The filters of the mint and transfer request lists. */
export function tokenRequestListQuery() {
  return Type.Object(
    {
      ...listQueryProperties('medium'),
      item_id: Type.Optional(Uuid),
      collection_id: Type.Optional(Uuid),
      to_address: Type.Optional(EthAddress),
    },
    { additionalProperties: false },
  );
}

export const ListMintRequestsQuery = tokenRequestListQuery();

export const MintRequestParams = Type.Object({ mint_request_id: Uuid }, { additionalProperties: false });
