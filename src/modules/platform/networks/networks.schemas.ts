import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { GAS_STRATEGY_TYPES } from '../../../db/enums.ts';
import type { NetworkConfig as StoredNetworkConfig } from '../../../db/schema.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, EthAddress, Nullable, StringEnum, Uint256 } from '../../../http/schemas.ts';

/** Chain ids are the network ids; the column is a PostgreSQL integer. */
export const NetworkId = Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'The chain id' });

/**
 * The fields of a network's `config` (camelCase, as the API spells them), declared once; the
 * create, edit and response shapes below are built from them.
 */
const GAS_STRATEGY_FIELDS = {
  type: StringEnum(GAS_STRATEGY_TYPES, {
    description: 'AUTO: EIP-1559 when the chain has a base fee, legacy otherwise',
  }),
  maxFeePerGas: Nullable({ ...Uint256, description: 'Cap of maxFeePerGas (or gasPrice), wei; null: none' }),
  maxPriorityFeePerGas: Nullable({ ...Uint256, description: 'Tip, wei; null: the node suggests it' }),
  bumpPercent: Type.Integer({
    minimum: 13,
    maximum: 100,
    description: 'Fee increase of each resubmission, percent (nodes need more than 12.5)',
  }),
};

const BATCH_FIELDS = {
  maxItems: Type.Integer({
    minimum: 1,
    maximum: 1000,
    description: 'Deliveries (one recipient and token each) in one batch transaction at most',
  }),
  maxGas: Type.Integer({
    minimum: 100_000,
    maximum: 1_000_000_000,
    description:
      "Gas of one batch transaction at most, entries counted at the call's estimate per entry; keep it under the chain's per-transaction cap",
  }),
  windowMs: Type.Integer({
    minimum: 0,
    maximum: 600_000,
    description:
      'How long a batch waits for more deliveries after its first, milliseconds (a full one goes at once)',
  }),
};

const CONFIG_FIELDS = {
  autoDeploy: Type.Boolean(),
  autoFundAmount: { ...Uint256, description: 'Top-up of organization wallets, wei' },
  batch: Type.Object(BATCH_FIELDS, {
    description:
      'Mints and transfers to many buyers in one transaction, on contracts with ADMIN_MINT_BATCH or BATCH_TRANSFER',
  }),
  confirmations: Type.Integer({ minimum: 1, maximum: 10_000, description: 'Blocks before COMPLETED' }),
  eip155: Type.Boolean({ description: 'Sign with replay protection (chain id)' }),
  gasStrategy: Type.Object(GAS_STRATEGY_FIELDS),
  maxConcurrentTxs: Type.Integer({ minimum: 1, maximum: 1000, description: 'In flight per wallet' }),
  poa: Type.Boolean({ description: 'Proof-of-authority chain (extra data in block headers)' }),
  txResubmitBlockCount: Nullable(
    Type.Integer({
      minimum: 1,
      maximum: 10_000,
      description: 'Blocks before a resubmission with higher fees',
    }),
  ),
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    format: 'uri',
    pattern: '^[hH][tT][tT][pP][sS]?://',
    description: 'JSON-RPC endpoint (http or https)',
  }),
};

type ConfigWithoutUrl = Omit<StoredNetworkConfig, 'url'>;

/** Defaults of every config field but `url`, which is required. */
export const CONFIG_DEFAULTS: Readonly<ConfigWithoutUrl> = Object.freeze({
  autoDeploy: false,
  autoFundAmount: '0',
  batch: Object.freeze({ maxItems: 100, maxGas: 12_000_000, windowMs: 1000 }),
  confirmations: 1,
  eip155: true,
  gasStrategy: Object.freeze({
    type: 'AUTO',
    maxFeePerGas: null,
    maxPriorityFeePerGas: null,
    bumpPercent: 13,
  }),
  maxConcurrentTxs: 16,
  poa: false,
  txResubmitBlockCount: 3,
});

function withDefault<T extends TSchema>(schema: T, value: unknown) {
  return Type.Optional({ ...schema, default: value } as T);
}

const GasStrategyInput = Type.Object(
  {
    type: withDefault(GAS_STRATEGY_FIELDS.type, CONFIG_DEFAULTS.gasStrategy.type),
    maxFeePerGas: withDefault(GAS_STRATEGY_FIELDS.maxFeePerGas, null),
    maxPriorityFeePerGas: withDefault(GAS_STRATEGY_FIELDS.maxPriorityFeePerGas, null),
    bumpPercent: withDefault(GAS_STRATEGY_FIELDS.bumpPercent, CONFIG_DEFAULTS.gasStrategy.bumpPercent),
  },
  { additionalProperties: false },
);

const BatchInput = Type.Object(
  {
    maxItems: withDefault(BATCH_FIELDS.maxItems, CONFIG_DEFAULTS.batch.maxItems),
    maxGas: withDefault(BATCH_FIELDS.maxGas, CONFIG_DEFAULTS.batch.maxGas),
    windowMs: withDefault(BATCH_FIELDS.windowMs, CONFIG_DEFAULTS.batch.windowMs),
  },
  { additionalProperties: false },
);

/** `config` on create: everything but `url` has a default. */
export const NetworkConfigInput = Type.Object(
  {
    autoDeploy: withDefault(CONFIG_FIELDS.autoDeploy, CONFIG_DEFAULTS.autoDeploy),
    autoFundAmount: withDefault(CONFIG_FIELDS.autoFundAmount, CONFIG_DEFAULTS.autoFundAmount),
    batch: withDefault(BatchInput, {}),
    confirmations: withDefault(CONFIG_FIELDS.confirmations, CONFIG_DEFAULTS.confirmations),
    eip155: withDefault(CONFIG_FIELDS.eip155, CONFIG_DEFAULTS.eip155),
    gasStrategy: withDefault(GasStrategyInput, {}),
    maxConcurrentTxs: withDefault(CONFIG_FIELDS.maxConcurrentTxs, CONFIG_DEFAULTS.maxConcurrentTxs),
    poa: withDefault(CONFIG_FIELDS.poa, CONFIG_DEFAULTS.poa),
    txResubmitBlockCount: withDefault(
      CONFIG_FIELDS.txResubmitBlockCount,
      CONFIG_DEFAULTS.txResubmitBlockCount,
    ),
    url: CONFIG_FIELDS.url,
  },
  { additionalProperties: false },
);
export type NetworkConfigInput = Static<typeof NetworkConfigInput>;

/**
 * `config` on edit: only the fields given change (gasStrategy merges the same way). No defaults
 * here, or every edit would reset the fields it leaves out.
 */
export const NetworkConfigPatch = Type.Partial(
  Type.Object({
    ...CONFIG_FIELDS,
    gasStrategy: Type.Partial(Type.Object(GAS_STRATEGY_FIELDS), { additionalProperties: false }),
    batch: Type.Partial(Type.Object(BATCH_FIELDS), { additionalProperties: false }),
  }),
  { additionalProperties: false },
);
export type NetworkConfigPatch = Static<typeof NetworkConfigPatch>;

export const NetworkConfig = Type.Object(CONFIG_FIELDS, { title: 'NetworkConfig' });
export type NetworkConfig = Static<typeof NetworkConfig>;

export const PaymentToken = Type.Object(
  {
    address: Type.String({ description: 'EIP-55 checksummed' }),
    symbol: Type.String({ description: "The token's symbol(), read from the chain" }),
    decimals: Type.Integer({ description: "The token's decimals(), read from the chain" }),
    network_id: Type.Integer(),
    eth: Type.Boolean(),
    eur_stablecoin: Type.Boolean(),
    usd_stablecoin: Type.Boolean(),
  },
  { title: 'PaymentToken' },
);
export type PaymentToken = Static<typeof PaymentToken>;

export const Network = Type.Object(
  {
    id: Type.Integer({ description: 'The chain id' }),
    name: Type.String(),
    enabled: Type.Boolean(),
    testnet: Type.Boolean(),
    payment_tokens: Type.Array(PaymentToken),
    config: NetworkConfig,
    created_at: DateTime,
  },
  { title: 'Network' },
);
export type Network = Static<typeof Network>;

const NetworkName = Type.String({ minLength: 1, maxLength: 200 });

export const AddPaymentTokenBody = Type.Object(
  {
    address: EthAddress,
    eth: Type.Optional(Type.Boolean({ default: false })),
    eur_stablecoin: Type.Optional(Type.Boolean({ default: false })),
    usd_stablecoin: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type AddPaymentTokenBody = Static<typeof AddPaymentTokenBody>;

export const CreateNetworkBody = Type.Object(
  {
    id: NetworkId,
    name: NetworkName,
    enabled: Type.Boolean(),
    testnet: Type.Boolean(),
    config: NetworkConfigInput,
    payment_tokens: Type.Optional(Nullable(Type.Array(AddPaymentTokenBody, { maxItems: 100 }))),
  },
  { additionalProperties: false },
);
export type CreateNetworkBody = Static<typeof CreateNetworkBody>;

/** Null leaves a field as it is; `config` merges field by field. */
export const EditNetworkBody = Type.Object(
  {
    name: Type.Optional(Nullable(NetworkName)),
    enabled: Type.Optional(Nullable(Type.Boolean())),
    testnet: Type.Optional(Nullable(Type.Boolean())),
    config: Type.Optional(Nullable(NetworkConfigPatch)),
  },
  { additionalProperties: false },
);
export type EditNetworkBody = Static<typeof EditNetworkBody>;

export const NetworkParams = Type.Object({ network_id: NetworkId }, { additionalProperties: false });

export const ListNetworksQuery = Type.Object(listQueryProperties('standard'), {
  additionalProperties: false,
});
export const ListPaymentTokensQuery = Type.Object(listQueryProperties('standard'), {
  additionalProperties: false,
});
