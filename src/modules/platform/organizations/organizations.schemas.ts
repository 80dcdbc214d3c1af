import { type Static, Type } from '@sinclair/typebox';
import { CARD_PROVIDER_CONNECT_TYPES } from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, EthAddress, Nullable, StringEnum, Uuid } from '../../../http/schemas.ts';

// Typed as a string so ajv's uniqueItems compares by hash (linear), not item by item (quadratic).
const ConnectType = StringEnum(CARD_PROVIDER_CONNECT_TYPES, { type: 'string' });
/** Each connect type at most once, so no more of them than there are. */
const ConnectTypes = Type.Array(ConnectType, {
  uniqueItems: true,
  maxItems: CARD_PROVIDER_CONNECT_TYPES.length,
});
const NetworkIds = Type.Array(Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), {
  uniqueItems: true,
  maxItems: 1000,
});
const PlatformSaleFee = Type.Integer({ minimum: 0, maximum: 10000, description: 'Basis points' });
const OrgName = Type.String({ minLength: 1, maxLength: 200 });
const Domain = Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.-]+$' });

export const Organization = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    is_enabled: Type.Boolean(),
    mfa_required: Type.Boolean(),
    network_ids: Type.Array(Type.Integer()),
    card_provider_connect_types: Type.Array(Type.String()),
    identity_provider_id: Nullable(Type.String()),
    auto_fund: Type.Boolean(),
    domain: Nullable(Type.String()),
    hardware_wallet: Type.Boolean(),
    payout_address: Nullable(Type.String()),
    platform_sale_fee: Type.Integer(),
    created_at: DateTime,
  },
  { $id: 'Organization', title: 'Organization' },
);
export type Organization = Static<typeof Organization>;

export const ListOrganizationsQuery = Type.Object(listQueryProperties('standard'), {
  additionalProperties: false,
});

export const CreateOrganizationBody = Type.Object(
  {
    name: OrgName,
    auto_fund: Type.Optional(Type.Boolean({ default: false })),
    domain: Type.Optional(Nullable(Domain)),
    hardware_wallet: Type.Optional(Type.Boolean({ default: false })),
    mfa_required: Type.Optional(Type.Boolean({ default: false })),
    platform_sale_fee: Type.Optional(PlatformSaleFee),
  },
  { additionalProperties: false },
);
export type CreateOrganizationBody = Static<typeof CreateOrganizationBody>;

/** Null on a non-nullable field means "leave as it is". */
export const EditOrganizationBody = Type.Object(
  {
    name: Type.Optional(Nullable(OrgName)),
    is_enabled: Type.Optional(Nullable(Type.Boolean())),
    mfa_required: Type.Optional(Nullable(Type.Boolean())),
    network_ids: Type.Optional(Nullable(NetworkIds)),
    card_provider_connect_types: Type.Optional(Nullable(ConnectTypes)),
    identity_provider_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    auto_fund: Type.Optional(Nullable(Type.Boolean())),
    domain: Type.Optional(Nullable(Domain)),
    hardware_wallet: Type.Optional(Nullable(Type.Boolean())),
    payout_address: Type.Optional(Nullable(EthAddress)),
    platform_sale_fee: Type.Optional(Nullable(PlatformSaleFee)),
  },
  { additionalProperties: false },
);
export type EditOrganizationBody = Static<typeof EditOrganizationBody>;

export const PayoutConfig = Type.Object(
  { payout_address: Nullable(Type.String()), platform_sale_fee: Type.Integer() },
  { $id: 'PayoutConfig', title: 'PayoutConfig' },
);
export type PayoutConfig = Static<typeof PayoutConfig>;

export const EditPayoutConfigBody = Type.Object(
  {
    payout_address: Type.Optional(Nullable(EthAddress)),
    platform_sale_fee: Type.Optional(Nullable(PlatformSaleFee)),
  },
  { additionalProperties: false },
);
export type EditPayoutConfigBody = Static<typeof EditPayoutConfigBody>;

export const OrganizationParams = Type.Object({ organization_id: Uuid }, { additionalProperties: false });
