import { type Static, Type } from '@sinclair/typebox';
import { ON_CHAIN_STATUSES, TRANSACTION_STATES, TRANSACTION_TYPES } from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, EthAddress, Nullable, StringEnum, Uuid } from '../../../http/schemas.ts';

const Wei = Type.String({ pattern: '^(0|[1-9][0-9]*)$', description: 'wei, as a decimal string' });

export const Transaction = Type.Object(
  {
    id: Uuid,
    organization_id: Nullable(Uuid),
    network_id: Type.Integer(),
    wallet_id: Uuid,
    type: StringEnum(TRANSACTION_TYPES),
    state: StringEnum(TRANSACTION_STATES),
    from_address: Type.String(),
    to_address: Nullable(Type.String()),
    value: Wei,
    nonce: Nullable(Type.Integer()),
    tx_hash: Nullable(
      Type.String({ description: 'Hash of the latest signed version (changes on fee bumps)' }),
    ),
    attempts: Type.Integer({ description: 'Signed versions so far (fee bumps re-sign with the same nonce)' }),
    gas_limit: Nullable(Wei),
    fees: Type.Object({
      max_fee_per_gas: Nullable(Wei),
      max_priority_fee_per_gas: Nullable(Wei),
      gas_price: Nullable(Wei),
      gas_used: Nullable(Wei),
      effective_gas_price: Nullable(Wei),
      fee: Nullable(Wei),
    }),
    on_chain_status: Nullable(StringEnum(ON_CHAIN_STATUSES)),
    block_number: Nullable(Type.Integer()),
    contract_address: Nullable(Type.String()),
    failure_reason: Nullable(Type.String({ description: 'Why it failed or was cancelled, readable' })),
    last_error: Nullable(Type.String({ description: 'The last retryable problem met while sending' })),
    created_at: DateTime,
    updated_at: DateTime,
    completed_at: Nullable(DateTime),
  },
  { $id: 'Transaction', title: 'Transaction' },
);
export type Transaction = Static<typeof Transaction>;

export const ListTransactionsQuery = Type.Object(
  {
    ...listQueryProperties('standard'),
    network_id: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
    state: Type.Optional(StringEnum(TRANSACTION_STATES)),
    type: Type.Optional(StringEnum(TRANSACTION_TYPES)),
    wallet_id: Type.Optional(Uuid),
    // The real platform's names (repeated query parameters; a row matches any value of each).
    network_ids: Type.Optional(
      Type.Array(Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), {
        maxItems: 50,
        description: 'Repeated: transactions on any of these networks',
      }),
    ),
    tx_types: Type.Optional(
      Type.Array(StringEnum(TRANSACTION_TYPES), {
        maxItems: 20,
        description: 'Repeated: any of these types',
      }),
    ),
    states: Type.Optional(
      Type.Array(StringEnum(TRANSACTION_STATES), {
        maxItems: 20,
        description: 'Repeated: any of these states',
      }),
    ),
    signers: Type.Optional(
      Type.Array(EthAddress, { maxItems: 50, description: 'Repeated: sent from any of these addresses' }),
    ),
  },
  { additionalProperties: false },
);

export const TransactionParams = Type.Object({ transaction_id: Uuid }, { additionalProperties: false });
