import { type Static, Type } from '@sinclair/typebox';
import {
  FULFILLMENT_METHODS,
  FULFILLMENT_STATUSES,
  PAYMENT_PROVIDERS,
  PURCHASE_INTENT_STATUSES,
} from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, Email, EthAddress, Nullable, StringEnum, Uint256, Uuid } from '../../../http/schemas.ts';

/** Purchase intents (docs/api.md#purchase-intents): a buyer's hold on a listing's units. */

export const PurchaseIntentStatus = StringEnum(PURCHASE_INTENT_STATUSES);
export const FulfillmentStatus = StringEnum(FULFILLMENT_STATUSES);
export const FulfillmentMethod = StringEnum(FULFILLMENT_METHODS);
export const PaymentProvider = StringEnum(PAYMENT_PROVIDERS);

export const ProviderPrice = Type.Object(
  {
    amount: { ...Uint256, description: 'price × quantity, in the currency' },
    currency: Type.String(),
  },
  { title: 'ProviderPrice' },
);
export type ProviderPrice = Static<typeof ProviderPrice>;

const IntentData = Nullable(
  Type.Object(
    {},
    { additionalProperties: true, description: "The provider's data (MINT_VOUCHER: the signed voucher)" },
  ),
);

export const PaymentMismatch = Type.Object(
  {
    provider: StringEnum(['CARD_PROVIDER', 'CRYPTO_PROVIDER'] as const),
    reference: Type.String({ description: "The provider's session the payment came through" }),
    amount: { ...Uint256, description: 'What was paid, in the smallest unit of the currency' },
    currency: Type.String(),
    reason: Type.String({ description: 'What does not match the intent' }),
    received_at: DateTime,
  },
  {
    title: 'PaymentMismatch',
    description:
      'The latest payment a provider reported for the intent that does not match it (amount, currency, session or provider): nothing was confirmed; the organization settles it',
  },
);

export const PurchaseIntent = Type.Object(
  {
    id: Uuid,
    listing_id: Uuid,
    quantity: Type.Integer(),
    status: PurchaseIntentStatus,
    fulfillment_status: FulfillmentStatus,
    fulfillment_method: FulfillmentMethod,
    payment_provider: PaymentProvider,
    email: Nullable(Type.String()),
    eth_address: Nullable(EthAddress),
    item_ids: Type.Array(Uuid, { description: 'Items assigned to the intent' }),
    item_claim_ids: Type.Array(Uuid, { description: 'Email claims that deliver it (EMAIL)' }),
    transaction_ids: Type.Array(Uuid, { description: 'Transactions that deliver it (TRANSFER)' }),
    provider_price: ProviderPrice,
    card_provider_payment_intent_id: Nullable(Type.String()),
    crypto_provider_charge_id: Nullable(Type.String()),
    fulfillment_error: Nullable(Type.String({ description: 'Why fulfilment is EXCEPTION' })),
    payment_mismatch: Nullable(PaymentMismatch),
    created_at: DateTime,
    expiration: DateTime,
    confirmed_at: Nullable(DateTime),
  },
  { $id: 'PurchaseIntent', title: 'PurchaseIntent' },
);
export type PurchaseIntent = Static<typeof PurchaseIntent>;

export const CreatePurchaseIntentBody = Type.Object(
  {
    listing_id: Uuid,
    quantity: Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      description: "1..the listing's max_quantity_per_tx",
    }),
    provider: PaymentProvider,
    buyer: Type.Object(
      {
        email: Type.Optional(Email),
        eth_address: Type.Optional(EthAddress),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type CreatePurchaseIntentBody = Static<typeof CreatePurchaseIntentBody>;

export const CreatedPurchaseIntent = Type.Object(
  {
    id: Uuid,
    status: PurchaseIntentStatus,
    expiration: DateTime,
    client_token: Type.String({
      description: 'Returned once: send it as X-Client-Token to read or cancel the intent',
    }),
    fulfillment_method: FulfillmentMethod,
    provider_price: ProviderPrice,
    data: IntentData,
  },
  { title: 'CreatedPurchaseIntent' },
);
export type CreatedPurchaseIntent = Static<typeof CreatedPurchaseIntent>;

export const PublicPurchaseIntent = Type.Object(
  {
    id: Uuid,
    listing_id: Uuid,
    quantity: Type.Integer(),
    status: PurchaseIntentStatus,
    fulfillment_status: FulfillmentStatus,
    fulfillment_method: FulfillmentMethod,
    payment_provider: PaymentProvider,
    provider_price: ProviderPrice,
    data: IntentData,
    item_claim_ids: Type.Array(Uuid),
    transaction_ids: Type.Array(Uuid),
    created_at: DateTime,
    expiration: DateTime,
  },
  { title: 'PublicPurchaseIntent' },
);
export type PublicPurchaseIntent = Static<typeof PublicPurchaseIntent>;

export const PurchaseIntentParams = Type.Object(
  { purchase_intent_id: Uuid },
  { additionalProperties: false },
);

export const ListPurchaseIntentsQuery = Type.Object(
  {
    ...listQueryProperties('medium'),
    item_id: Type.Optional(Uuid),
    collection_id: Type.Optional(Uuid),
    listing_id: Type.Optional(Uuid),
    status: Type.Optional(Type.Array(PurchaseIntentStatus, { maxItems: 5 })),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    eth_address: Type.Optional(EthAddress),
    fulfillment_status: Type.Optional(Type.Array(FulfillmentStatus, { maxItems: 4 })),
    fulfillment_method: Type.Optional(Type.Array(FulfillmentMethod, { maxItems: 3 })),
    payment_provider: Type.Optional(Type.Array(PaymentProvider, { maxItems: 4 })),
    payment_mismatch: Type.Optional(
      Type.Boolean({ description: 'true: only intents with a payment_mismatch; false: only those without' }),
    ),
  },
  { additionalProperties: false },
);
export type ListPurchaseIntentsQuery = Static<typeof ListPurchaseIntentsQuery>;
