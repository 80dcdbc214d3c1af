import { type Static, Type } from '@sinclair/typebox';
import { LISTING_STATUSES, PAYMENT_PROVIDERS, TX_PAYERS } from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, Email, EthAddress, Nullable, StringEnum, Uint256, Uuid } from '../../../http/schemas.ts';
import { ITEM_SELECTOR_FIELDS } from '../../catalog/items/item-selection.ts';

/** Listings (docs/api.md#listings): items reserved for sale at a price, with their policy. */

export const ListingStatus = StringEnum(LISTING_STATUSES, {
  description:
    "PENDING_TX while the collection's deployment is in flight, ACTIVE, COMPLETE once every unit is sold, CANCELLED",
});
export const PaymentProvider = StringEnum(PAYMENT_PROVIDERS);
export type PaymentProvider = Static<typeof PaymentProvider>;
export const PolicyType = StringEnum(['FCFS', 'ALLOW_LIST'] as const);
export const ItemAssignmentStrategy = StringEnum(['AUTOMATIC', 'RANDOM'] as const, {
  description: 'AUTOMATIC: lowest token id first (default); RANDOM',
});

/** Bounds of the policy's fields. */
export const POLICY_LIMITS = {
  minSessionSeconds: 60,
  maxSessionSeconds: 86_400,
  defaultSessionSeconds: 900,
  minClaimSeconds: 60,
  maxClaimSeconds: 31_536_000,
  defaultClaimSeconds: 604_800,
  maxAllowListEntries: 10_000,
} as const;

const SessionSeconds = Type.Integer({
  minimum: POLICY_LIMITS.minSessionSeconds,
  maximum: POLICY_LIMITS.maxSessionSeconds,
});
const Int32 = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

export const PaymentSessionDuration = Type.Object(
  {
    timeout_seconds: Type.Optional(
      Nullable({
        ...SessionSeconds,
        description: `Seconds a purchase intent holds its units; default ${POLICY_LIMITS.defaultSessionSeconds}`,
      }),
    ),
    provider_override: Type.Optional(
      Nullable(
        Type.Object(Object.fromEntries(PAYMENT_PROVIDERS.map((p) => [p, Type.Optional(SessionSeconds)])), {
          additionalProperties: false,
          description: "A provider's own session length (wins over timeout_seconds)",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

export const ListingPolicyInput = Type.Object(
  {
    type: PolicyType,
    max_per_user: Type.Optional(
      Nullable({
        ...Int32,
        description:
          'Units a buyer may hold or have bought (PENDING and CONFIRMED intents); email compared lower-case, address by value',
      }),
    ),
    payment_session_duration: Type.Optional(Nullable(PaymentSessionDuration)),
    email_claim_duration: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: POLICY_LIMITS.minClaimSeconds,
          maximum: POLICY_LIMITS.maxClaimSeconds,
          description: `Seconds the email claims delivering a sale stay open; default ${POLICY_LIMITS.defaultClaimSeconds}`,
        }),
      ),
    ),
    item_assignment_strategy: Type.Optional(Nullable(ItemAssignmentStrategy)),
    tx_payer: Type.Optional(
      Nullable(StringEnum(TX_PAYERS, { description: 'SELLER (default); BUYER only with MINT_VOUCHER' })),
    ),
    email_addresses: Type.Optional(
      Nullable(
        Type.Array(Email, {
          maxItems: POLICY_LIMITS.maxAllowListEntries,
          description: 'ALLOW_LIST: buyers by email (any case)',
        }),
      ),
    ),
    eth_addresses: Type.Optional(
      Nullable(
        Type.Array(EthAddress, {
          maxItems: POLICY_LIMITS.maxAllowListEntries,
          description: 'ALLOW_LIST: buyers by address',
        }),
      ),
    ),
    snapshot_id: Type.Optional(
      Nullable(Type.String({ maxLength: 255, description: 'Not supported: any value is a 400' })),
    ),
  },
  { additionalProperties: false },
);
export type ListingPolicyInput = Static<typeof ListingPolicyInput>;

export const ListingPolicy = Type.Object(
  {
    type: PolicyType,
    max_per_user: Nullable(Type.Integer()),
    payment_session_duration: Type.Object({
      timeout_seconds: Type.Integer(),
      provider_override: Type.Record(Type.String(), Type.Integer()),
    }),
    email_claim_duration: Type.Integer(),
    item_assignment_strategy: ItemAssignmentStrategy,
    tx_payer: StringEnum(TX_PAYERS),
    email_addresses: Nullable(Type.Array(Type.String())),
    eth_addresses: Nullable(Type.Array(Type.String())),
  },
  { title: 'ListingPolicy' },
);
export type ListingPolicy = Static<typeof ListingPolicy>;

export const Listing = Type.Object(
  {
    id: Uuid,
    status: ListingStatus,
    collection_id: Uuid,
    item_id: Nullable({ ...Uuid, description: 'Set for an item-level listing' }),
    quantity_listed: Type.Integer(),
    quantity_remaining: Type.Integer({ description: 'quantity_listed minus units of CONFIRMED intents' }),
    sale_type: Type.String(),
    price: { ...Uint256, description: 'Per unit: fiat in cents, crypto in the smallest unit' },
    currency: Type.String(),
    settlement_currency: Type.Record(Type.String(), Type.String()),
    max_quantity_per_tx: Type.Integer(),
    payment_providers: Type.Array(PaymentProvider),
    start_time: Nullable(DateTime),
    end_time: Nullable(DateTime),
    policy: ListingPolicy,
    campaign_id: Nullable(Uuid),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'Listing', title: 'Listing' },
);
export type Listing = Static<typeof Listing>;

export const CreateListingBody = Type.Object(
  {
    ...ITEM_SELECTOR_FIELDS,
    currency: Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'USD, EUR, ETH or a payment token symbol of the network',
    }),
    price: Uint256,
    max_quantity_per_tx: Int32,
    payment_providers: Type.Array(PaymentProvider, {
      minItems: 1,
      maxItems: PAYMENT_PROVIDERS.length,
      uniqueItems: true,
    }),
    policy: ListingPolicyInput,
    quantity_listed: Type.Optional(Nullable({ ...Int32, description: 'Default: every eligible unit' })),
    start_time: Type.Optional(Nullable(DateTime)),
    end_time: Type.Optional(Nullable(DateTime)),
    campaign_id: Type.Optional(Nullable(Uuid)),
  },
  { additionalProperties: false },
);
export type CreateListingBody = Static<typeof CreateListingBody>;

export const EditListingBody = Type.Object(
  {
    start_time: Type.Optional(Nullable(DateTime)),
    end_time: Type.Optional(Nullable(DateTime)),
    policy: Type.Optional(ListingPolicyInput),
    campaign_id: Type.Optional(Nullable(Uuid)),
  },
  { additionalProperties: false },
);
export type EditListingBody = Static<typeof EditListingBody>;

export const ListListingsQuery = Type.Object(
  {
    ...listQueryProperties('medium'),
    item_id: Type.Optional(Uuid),
    collection_id: Type.Optional(Uuid),
    status: Type.Optional(Type.Array(ListingStatus, { maxItems: 4 })),
  },
  { additionalProperties: false },
);
export type ListListingsQuery = Static<typeof ListListingsQuery>;

export const ListingParams = Type.Object({ listing_id: Uuid }, { additionalProperties: false });

export const PublicListing = Type.Object(
  {
    id: Uuid,
    status: ListingStatus,
    collection_id: Uuid,
    item_id: Nullable(Uuid),
    network_id: Nullable(Type.Integer()),
    contract_address: Nullable(EthAddress),
    token_type: Nullable(Type.String()),
    quantity_listed: Type.Integer(),
    quantity_remaining: Type.Integer(),
    quantity_available: Type.Integer({ description: 'Units not sold nor held by a pending purchase' }),
    price: Uint256,
    currency: Type.String(),
    settlement_currency: Type.Record(Type.String(), Type.String()),
    max_quantity_per_tx: Type.Integer(),
    payment_providers: Type.Array(PaymentProvider),
    start_time: Nullable(DateTime),
    end_time: Nullable(DateTime),
    policy: Type.Object({
      type: PolicyType,
      max_per_user: Nullable(Type.Integer()),
      tx_payer: StringEnum(TX_PAYERS),
    }),
  },
  { title: 'PublicListing' },
);
export type PublicListing = Static<typeof PublicListing>;

export const EligibilityQuery = Type.Object(
  {
    eth_address: Type.Optional(EthAddress),
    email: Type.Optional(Email),
  },
  { additionalProperties: false },
);
export type EligibilityQuery = Static<typeof EligibilityQuery>;

export const Eligibility = Type.Object(
  {
    is_eligible: Type.Boolean(),
    quantity_claimed: Type.Integer({ description: "The buyer's units in PENDING and CONFIRMED intents" }),
    quantity_allowed: Nullable(
      Type.Integer({ description: 'Units the buyer may still take (null: no per-user limit)' }),
    ),
    reason: Nullable(
      StringEnum([
        'NOT_ACTIVE',
        'NOT_STARTED',
        'ENDED',
        'NOT_ON_ALLOW_LIST',
        'MAX_PER_USER',
        'SOLD_OUT',
        'BUYER_REQUIRED',
      ] as const),
    ),
  },
  { title: 'Eligibility' },
);
export type Eligibility = Static<typeof Eligibility>;
