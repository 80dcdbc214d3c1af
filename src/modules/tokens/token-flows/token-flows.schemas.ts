import { type Static, Type } from '@sinclair/typebox';
import { REQUEST_STATES } from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, EthAddress, Nullable, StringEnum, Uint256, Uuid } from '../../../http/schemas.ts';
import { ITEM_SELECTOR_FIELDS } from '../../catalog/items/item-selection.ts';

/** Mint and transfer requests mirror their transaction (docs/api.md#states). */
export const RequestState = StringEnum(REQUEST_STATES, {
  description:
    'PENDING while the transaction waits to be sent, SUBMITTED once broadcast, COMPLETED when it succeeded on-chain, FAILED when it reverted or was cancelled (the reservation is then released)',
});

/**
 * The body of a mint or a transfer request (the same for both). Exactly one
 * selector form: item_id | item_ids | collection_id | collection_id + token_ids |
 * collection_id + token_ranges.
 */
export const TokenRequestBody = Type.Object(
  {
    to_address: { ...EthAddress, description: `Receives the tokens. ${EthAddress.description}` },
    ...ITEM_SELECTOR_FIELDS,
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

const TokenRequestRecord = Type.Object(TOKEN_REQUEST_FIELDS);
/** A mint or transfer request as the API shows it, but for its quantity (typed per resource). */
export type TokenRequestRecord = Static<typeof TokenRequestRecord>;

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
