import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type {
  CARD_PROVIDER_CONNECT_TYPES,
  CARD_PROVIDER_MODES,
  CLAIM_DEACTIVATION_REASONS,
  DEPLOYMENT_STATUSES,
  DEPLOYMENT_TYPES,
  EMAIL_PROVIDERS,
  FULFILLMENT_METHODS,
  FULFILLMENT_STATUSES,
  GAS_STRATEGY_TYPES,
  LISTING_STATUSES,
  MINT_VOUCHER_STATUSES,
  ON_CHAIN_STATUSES,
  OUTBOX_STATUSES,
  PAYMENT_PROVIDERS,
  PURCHASE_INTENT_STATUSES,
  REQUEST_STATES,
  RESERVATION_KINDS,
  REVEAL_STRATEGIES,
  TEMPLATE_TYPES,
  TOKEN_FLOW_OWNER_KINDS,
  TOKEN_ID_ASSIGNMENT_STRATEGIES,
  TOKEN_STATUSES,
  TOKEN_TYPES,
  TRANSACTION_STATES,
  TRANSACTION_TYPES,
  TX_PAYERS,
  USER_TOKEN_PURPOSES,
  VOUCHER_HOLDER_KINDS,
  WALLET_KINDS,
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
} from './enums.ts';

/** Column types of the database, one interface per table (wire names are the column names). */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export type CardProviderConnectType = (typeof CARD_PROVIDER_CONNECT_TYPES)[number];

export interface OrganizationsTable {
  id: string;
  name: string;
  is_enabled: Generated<boolean>;
  mfa_required: Generated<boolean>;
  network_ids: Generated<number[]>;
  card_provider_connect_types: Generated<CardProviderConnectType[]>;
  identity_provider_id: string | null;
  auto_fund: Generated<boolean>;
  domain: string | null;
  hardware_wallet: Generated<boolean>;
  platform_sale_fee: Generated<number>;
  payout_address: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RolesTable {
  id: string;
  name: string;
  description: string;
  created_at: Timestamp;
}

export interface UsersTable {
  id: string;
  organization_id: string;
  email: string;
  role_id: string;
  password_hash: string | null;
  active: Generated<boolean>;
  /** Deactivated by a platform admin: only a platform admin may reactivate (migration 0008). */
  deactivated_by_platform: Generated<boolean>;
  verified_at: NullableTimestamp;
  mfa_enabled: Generated<boolean>;
  mfa_secret: string | null;
  mfa_pending_secret: string | null;
  mfa_last_step: ColumnType<string | null, number | null | undefined, number | null>;
  session_version: Generated<number>;
  last_seen: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type UserTokenPurpose = (typeof USER_TOKEN_PURPOSES)[number];

export interface UserTokensTable {
  id: string;
  user_id: string;
  purpose: UserTokenPurpose;
  token_hash: Buffer;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  key_hash: Buffer;
  expiration: NullableTimestamp;
  last_used: NullableTimestamp;
  revoked_at: NullableTimestamp;
  created_at: Timestamp;
}

/** SENDING: claimed by one delivery until `claimed_until`; see migrations/0005_mail_outbox_claims.ts. */
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

export interface MailOutboxTable {
  id: string;
  organization_id: string | null;
  template_type: string;
  to_address: string;
  subject: string;
  html: string;
  text: string;
  status: Generated<OutboxStatus>;
  /** Outcomes recorded (sent or failed). */
  attempts: Generated<number>;
  last_error: string | null;
  transport: string | null;
  created_at: Timestamp;
  sent_at: NullableTimestamp;
  /** End of the current delivery's claim while SENDING. */
  claimed_until: NullableTimestamp;
  /** Times the message was handed to a transport (counted when claimed). */
  send_count: Generated<number>;
  /** A send whose outcome was never recorded was followed by another: it may have arrived twice. */
  resent: Generated<boolean>;
  /** The campaign the mail belongs to, if any (no foreign key: the mail outlives the campaign). */
  campaign_id: string | null;
  /** The campaign's `email_from` when the mail was queued; null: the transport's own sender. */
  sender: string | null;
}

export interface MailboxMessagesTable {
  id: string;
  outbox_id: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  method: string;
  path: string;
  request_hash: Buffer;
  status_code: number | null;
  response_body: string | null;
  response_content_type: string | null;
  locked_until: Timestamp;
  created_at: Timestamp;
}

export interface RateLimitBucketsTable {
  key: string;
  window_start: Timestamp;
  hits: number;
}

/** Network `config` as stored (camelCase, as the API spells it). */
export interface NetworkConfig {
  autoDeploy: boolean;
  /** Wei, as a decimal string. */
  autoFundAmount: string;
  confirmations: number;
  eip155: boolean;
  gasStrategy: GasStrategy;
  maxConcurrentTxs: number;
  /** Deliveries batched across buyers (token flows on a contract with a batch call). */
  batch: BatchConfig;
  poa: boolean;
  txResubmitBlockCount: number | null;
  url: string;
}

export interface BatchConfig {
  /** Entries (one recipient and token each) in one batch transaction at most. */
  maxItems: number;
  /** Gas one batch transaction may use at most (entries are counted at a per-call estimate). */
  maxGas: number;
  /** How long a batch stays open for more entries after its first, milliseconds. */
  windowMs: number;
}

export type GasStrategyType = (typeof GAS_STRATEGY_TYPES)[number];

export interface GasStrategy {
  /** EIP1559 or LEGACY fees; AUTO picks EIP-1559 when the chain's blocks have a base fee. */
  type: GasStrategyType;
  /** Upper bound of maxFeePerGas (EIP-1559) or gasPrice (legacy), wei; null: no bound. */
  maxFeePerGas: string | null;
  /** Tip (EIP-1559), wei; null: the node's suggestion. */
  maxPriorityFeePerGas: string | null;
  /** Percent added to fees on each resubmission: at least 13 (nodes require +12.5%). */
  bumpPercent: number;
}

export interface NetworksTable {
  id: number;
  name: string;
  enabled: boolean;
  testnet: boolean;
  config: ColumnType<NetworkConfig, string, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PaymentTokensTable {
  network_id: number;
  address: string;
  symbol: string;
  decimals: number;
  eth: Generated<boolean>;
  eur_stablecoin: Generated<boolean>;
  usd_stablecoin: Generated<boolean>;
  created_at: Timestamp;
}

export type WalletKind = (typeof WALLET_KINDS)[number];

export interface WalletsTable {
  id: string;
  organization_id: string | null;
  kind: WalletKind;
  address: string;
  /** Encrypted at rest (Keyring.encrypt). */
  private_key: string;
  created_at: Timestamp;
}

export interface WalletNoncesTable {
  network_id: number;
  address: string;
  next_nonce: ColumnType<string, string | number | bigint, string | number | bigint>;
  updated_at: Timestamp;
}

export interface RelayerLeasesTable {
  network_id: number;
  address: string;
  holder: string;
  epoch: ColumnType<string, string | number | bigint, string | number | bigint>;
  expires_at: Timestamp;
}

export type TransactionState = (typeof TRANSACTION_STATES)[number];
export type TransactionType = (typeof TRANSACTION_TYPES)[number];
export type OnChainStatus = (typeof ON_CHAIN_STATUSES)[number];

type Wei = ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
type BigIntColumn = ColumnType<
  string | null,
  string | number | bigint | null | undefined,
  string | number | bigint | null
>;

export interface TransactionsTable {
  id: string;
  organization_id: string | null;
  network_id: number;
  wallet_id: string;
  from_address: string;
  type: TransactionType;
  to_address: string | null;
  data: Generated<string>;
  value: ColumnType<string, string | bigint | undefined, string | bigint>;
  gas_limit: Wei;
  state: Generated<TransactionState>;
  nonce: BigIntColumn;
  tx_hash: string | null;
  raw_tx: string | null;
  max_fee_per_gas: Wei;
  max_priority_fee_per_gas: Wei;
  gas_price: Wei;
  attempts: Generated<number>;
  submitted_at: NullableTimestamp;
  submitted_block: BigIntColumn;
  mined_block_number: BigIntColumn;
  mined_block_hash: string | null;
  on_chain_status: OnChainStatus | null;
  gas_used: Wei;
  effective_gas_price: Wei;
  fee: Wei;
  contract_address: string | null;
  failure_reason: string | null;
  last_error: string | null;
  next_attempt_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: NullableTimestamp;
  /** What may join a batch (its call and collection); null: not a batch. */
  batch_key: string | null;
  /** A PENDING batch that records may still join; the relayer closes it (writes its data). */
  batch_open: Generated<boolean>;
  /** Entries (records) the batch carries. */
  batch_size: Generated<number>;
  /** Entries it may carry (the network's caps of items and gas). */
  batch_cap: Generated<number>;
}

export interface TransactionAttemptsTable {
  id: string;
  transaction_id: string;
  tx_hash: string;
  raw_tx: string;
  nonce: ColumnType<string, string | number | bigint, string | number | bigint>;
  max_fee_per_gas: Wei;
  max_priority_fee_per_gas: Wei;
  gas_price: Wei;
  created_at: Timestamp;
}

type Uint256Column = ColumnType<string, string | bigint, string | bigint>;
type NullableUint256Column = ColumnType<
  string | null,
  string | bigint | null | undefined,
  string | bigint | null
>;
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;

/** ERC-2981 royalty as the API carries it. */
export interface RoyaltyInfo {
  receiver: string;
  amount_bps: number;
}

export interface ItemTypesTable {
  id: string;
  organization_id: string;
  name: string;
  json_schema: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type RevealStrategy = (typeof REVEAL_STRATEGIES)[number];
export type DeploymentType = (typeof DEPLOYMENT_TYPES)[number];
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];
export type TokenType = (typeof TOKEN_TYPES)[number];
export type TokenIdAssignmentStrategy = (typeof TOKEN_ID_ASSIGNMENT_STRATEGIES)[number];

export interface CollectionsTable {
  id: string;
  organization_id: string;
  name: string;
  default_item_type_id: string | null;
  image_url: string | null;
  reveal_strategy: RevealStrategy;
  preview_metadata: NullableJson<Record<string, unknown>>;
  editable_metadata: Generated<boolean>;
  reveal_hidden: boolean;
  functions_enabled: Generated<boolean>;
  royalty_info: NullableJson<RoyaltyInfo>;
  deployment_type: DeploymentType | null;
  deployment_status: DeploymentStatus | null;
  network_id: number | null;
  token_type: TokenType | null;
  symbol: string | null;
  token_id_assignment_strategy: TokenIdAssignmentStrategy | null;
  platform_variant: string | null;
  abi: NullableJson<unknown[]>;
  contract_address: string | null;
  capabilities: Generated<string[]>;
  deployment_transaction_id: string | null;
  deployment_failure_reason: string | null;
  max_supply: NullableUint256Column;
  owner_address: string | null;
  next_token_id: ColumnType<string, string | bigint | undefined, string | bigint>;
  /** Kept by triggers on items (migrations/0003_catalog.ts); never written by the service. */
  item_count: Generated<string>;
  locked_item_count: Generated<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CollectionFunctionsTable {
  collection_id: string;
  /** 8 lowercase hex characters, no 0x. */
  selector: string;
  enabled: boolean;
  updated_at: Timestamp;
}

export type TokenStatus = (typeof TOKEN_STATUSES)[number];

export interface ItemsTable {
  id: string;
  organization_id: string;
  collection_id: string;
  item_type_id: string | null;
  attributes: Json<Record<string, unknown>>;
  locked: Generated<boolean>;
  max_supply: NullableUint256Column;
  token_id: NullableUint256Column;
  token_status: Generated<TokenStatus>;
  minted_supply: ColumnType<string, string | bigint | undefined, string | bigint>;
  held_supply: ColumnType<string, string | bigint | undefined, string | bigint>;
  royalty_info: NullableJson<RoyaltyInfo>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ReservationKind = (typeof RESERVATION_KINDS)[number];

export interface ItemReservationsTable {
  id: string;
  item_id: string;
  kind: ReservationKind;
  holder_id: string;
  quantity: Uint256Column;
  created_at: Timestamp;
  /** When the hold ends by itself (released by its holder's expiry); null: until released. */
  expires_at: NullableTimestamp;
  released_at: NullableTimestamp;
}

export type RequestState = (typeof REQUEST_STATES)[number];
export type TokenFlowOwnerKind = (typeof TOKEN_FLOW_OWNER_KINDS)[number];

/** mint_requests and transfer_requests share their columns. */
export interface TokenRequestsTable {
  id: string;
  organization_id: string;
  collection_id: string;
  item_id: string;
  quantity: Uint256Column;
  to_address: string;
  transaction_id: string;
  /** What the record delivers for: REQUEST (its own), or the claim or intent `owner_id`. */
  owner_kind: Generated<TokenFlowOwnerKind>;
  owner_id: string | null;
  state: Generated<RequestState>;
  failure_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An event a payment provider sent to a webhook, recorded once per (provider, event_id). */
export interface ProviderEventsTable {
  id: string;
  provider: string;
  event_id: string;
  event_type: string;
  account: string | null;
  payload: string;
  received_at: Timestamp;
  processed_at: NullableTimestamp;
  attempts: Generated<number>;
  last_error: string | null;
}

export type EmailProvider = (typeof EMAIL_PROVIDERS)[number];
export type TemplateType = (typeof TEMPLATE_TYPES)[number];
export type TxPayer = (typeof TX_PAYERS)[number];
export type ClaimDeactivationReason = (typeof CLAIM_DEACTIVATION_REASONS)[number];

export interface MarketingCampaignsTable {
  id: string;
  organization_id: string;
  name: string;
  email_from: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One per organization; `config` holds the non-secret fields, the secret is encrypted apart. */
export interface EmailIntegrationsTable {
  id: string;
  organization_id: string;
  provider: EmailProvider;
  config: Json<Record<string, unknown>>;
  secret_encrypted: string | null;
  active: boolean;
  last_error: string | null;
  last_error_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The organization's version of a template type (campaign_id null) or a campaign's own. */
export interface EmailTemplatesTable {
  id: string;
  organization_id: string;
  campaign_id: string | null;
  template_type: TemplateType;
  subject: string;
  html: string;
  editor_embed_design_json: NullableJson<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface EmailClaimsTable {
  id: string;
  organization_id: string;
  collection_id: string;
  item_id: string;
  email: string;
  quantity: Uint256Column;
  tx_payer: Generated<TxPayer>;
  type: string | null;
  campaign_id: string | null;
  /** SHA-256 of the link's secret. */
  token_hash: Buffer;
  expiration: Timestamp;
  active: Generated<boolean>;
  deactivation_reason: ClaimDeactivationReason | null;
  claimed_at: NullableTimestamp;
  to_address: string | null;
  transaction_id: string | null;
  voucher_id: string | null;
  pin_hash: Buffer | null;
  pin_expires_at: NullableTimestamp;
  pin_failed_attempts: Generated<number>;
  last_pin_code_email_sent_at: NullableTimestamp;
  mail_outbox_id: string | null;
  /**
   * The listing whose reservation holds the claim's units (an ERC-1155 sale's claim; it has no
   * reservation of its own), or null.
   */
  covered_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** purchase_intents.payment_mismatch: a payment a provider reported that does not fit the intent. */
export interface PaymentMismatchRecord {
  provider: 'CARD_PROVIDER' | 'CRYPTO_PROVIDER';
  /** The provider's session the payment came through. */
  reference: string;
  /** In the smallest unit of `currency`, a decimal string. */
  amount: string;
  currency: string;
  reason: string;
  received_at: string;
}

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** An organization's endpoint; see migrations/0010_webhooks.ts. */
export interface WebhooksTable {
  id: string;
  organization_id: string;
  url: string;
  events: WebhookEventType[];
  enabled: Generated<boolean>;
  secret_encrypted: string;
  /** Signs too, for 24 h after `secret_rotated_at`. */
  previous_secret_encrypted: string | null;
  secret_rotated_at: NullableTimestamp;
  /** The first failure of the current run of failures; null after a success. */
  failing_since: NullableTimestamp;
  disabled_reason: string | null;
  disabled_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface WebhookEventsTable {
  id: string;
  organization_id: string;
  type: WebhookEventType;
  resource_id: string;
  /** The body every delivery of the event sends: `{type, timestamp, data}` as JSON text. */
  payload: string;
  created_at: Generated<Date>;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  organization_id: string;
  event_id: string;
  event_type: WebhookEventType;
  resource_id: string;
  /** Order of occurrence among the deliveries of one resource to one endpoint. */
  sequence: ColumnType<string, never, never>;
  status: Generated<WebhookDeliveryStatus>;
  attempts: Generated<number>;
  max_attempts: number;
  send_count: Generated<number>;
  resent: Generated<boolean>;
  claimed_until: NullableTimestamp;
  next_attempt_at: NullableTimestamp;
  response_status: number | null;
  last_error: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  completed_at: NullableTimestamp;
}

export type ListingStatus = (typeof LISTING_STATUSES)[number];
export type PaymentProvider = (typeof PAYMENT_PROVIDERS)[number];
export type PurchaseIntentStatus = (typeof PURCHASE_INTENT_STATUSES)[number];
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];
export type FulfillmentMethod = (typeof FULFILLMENT_METHODS)[number];

export interface ListingsTable {
  id: string;
  organization_id: string;
  collection_id: string;
  /** Set for an item-level listing. */
  item_id: string | null;
  status: ListingStatus;
  sale_type: Generated<string>;
  price: Uint256Column;
  currency: string;
  payment_providers: PaymentProvider[];
  max_quantity_per_tx: number;
  quantity_listed: number;
  /** Units held by PENDING intents. */
  quantity_held: Generated<number>;
  /** Units of CONFIRMED intents. */
  quantity_sold: Generated<number>;
  start_time: NullableTimestamp;
  end_time: NullableTimestamp;
  policy: Json<Record<string, unknown>>;
  campaign_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PurchaseIntentsTable {
  id: string;
  organization_id: string;
  listing_id: string;
  quantity: number;
  status: PurchaseIntentStatus;
  fulfillment_status: Generated<FulfillmentStatus>;
  fulfillment_method: FulfillmentMethod;
  payment_provider: PaymentProvider;
  email: string | null;
  eth_address: string | null;
  client_token_hash: Buffer;
  item_ids: Generated<string[]>;
  item_claim_ids: Generated<string[]>;
  transaction_ids: Generated<string[]>;
  provider_price: Json<Record<string, unknown>>;
  data: NullableJson<Record<string, unknown>>;
  card_provider_payment_intent_id: string | null;
  crypto_provider_charge_id: string | null;
  fulfillment_error: string | null;
  /** The latest reported payment that did not match the intent, or null. */
  payment_mismatch: NullableJson<PaymentMismatchRecord>;
  expiration: Timestamp;
  confirmed_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type CardProviderMode = (typeof CARD_PROVIDER_MODES)[number];

/** A platform account at the card provider (Stripe), with its encrypted secrets. */
export interface CardProviderPlatformAccountsTable {
  id: string;
  name: string;
  mode: CardProviderMode;
  publishable_key: string;
  secret_key_encrypted: string;
  card_provider_account_id: string;
  session_timeout_minutes: number;
  fee_percentage_bps: number | null;
  config: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  account_webhook_endpoint_secret_encrypted: string | null;
  connect_webhook_endpoint_secret_encrypted: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Whether an organization may use a platform account (no row: it may not). */
export interface OrganizationCardProviderAccountsTable {
  organization_id: string;
  platform_card_provider_account_id: string;
  enabled: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An organization's connected account at the card provider. */
export interface CardProviderConnectedAccountsTable {
  organization_id: string;
  platform_card_provider_account_id: string;
  account_id: string;
  connect_type: CardProviderConnectType;
  charges_enabled: Generated<boolean>;
  details_submitted: Generated<boolean>;
  /** Null for the organization's current account. */
  disconnected_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * A connected account's creation, claimed before the card provider is called: the key the call
 * carries, so that a call made again answers the same account.
 */
export interface CardProviderAccountClaimsTable {
  organization_id: string;
  platform_card_provider_account_id: string;
  idempotency_key: string;
  created_at: Generated<Date>;
}

export type CardProviderPlatformAccountRow = Selectable<CardProviderPlatformAccountsTable>;
export type OrganizationCardProviderAccountRow = Selectable<OrganizationCardProviderAccountsTable>;
export type CardProviderConnectedAccountRow = Selectable<CardProviderConnectedAccountsTable>;

export interface Database {
  organizations: OrganizationsTable;
  roles: RolesTable;
  users: UsersTable;
  user_tokens: UserTokensTable;
  api_keys: ApiKeysTable;
  mail_outbox: MailOutboxTable;
  mailbox_messages: MailboxMessagesTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limit_buckets: RateLimitBucketsTable;
  networks: NetworksTable;
  payment_tokens: PaymentTokensTable;
  wallets: WalletsTable;
  wallet_nonces: WalletNoncesTable;
  relayer_leases: RelayerLeasesTable;
  transactions: TransactionsTable;
  transaction_attempts: TransactionAttemptsTable;
  item_types: ItemTypesTable;
  collections: CollectionsTable;
  collection_functions: CollectionFunctionsTable;
  items: ItemsTable;
  item_reservations: ItemReservationsTable;
  mint_requests: TokenRequestsTable;
  transfer_requests: TokenRequestsTable;
  provider_events: ProviderEventsTable;
  marketing_campaigns: MarketingCampaignsTable;
  email_integrations: EmailIntegrationsTable;
  email_templates: EmailTemplatesTable;
  email_claims: EmailClaimsTable;
  webhooks: WebhooksTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  listings: ListingsTable;
  purchase_intents: PurchaseIntentsTable;
  mint_vouchers: MintVouchersTable;
  card_provider_platform_accounts: CardProviderPlatformAccountsTable;
  organization_card_provider_accounts: OrganizationCardProviderAccountsTable;
  card_provider_connected_accounts: CardProviderConnectedAccountsTable;
  card_provider_account_claims: CardProviderAccountClaimsTable;
  crypto_provider_configs: CryptoProviderConfigsTable;
}

export type OrganizationRow = Selectable<OrganizationsTable>;
export type NewOrganization = Insertable<OrganizationsTable>;
export type OrganizationUpdate = Updateable<OrganizationsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type RoleRow = Selectable<RolesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type MailOutboxRow = Selectable<MailOutboxTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type MailboxMessageRow = Selectable<MailboxMessagesTable>;
export type NetworkRow = Selectable<NetworksTable>;
export type PaymentTokenRow = Selectable<PaymentTokensTable>;
export type WalletRow = Selectable<WalletsTable>;
export type TransactionRow = Selectable<TransactionsTable>;
export type TransactionAttemptRow = Selectable<TransactionAttemptsTable>;
export type MintVoucherStatus = (typeof MINT_VOUCHER_STATUSES)[number];
export type VoucherHolderKind = (typeof VOUCHER_HOLDER_KINDS)[number];

/** A mint voucher signed for one minter (addresses lower-case; integers as decimal strings). */
export interface MintVouchersTable {
  id: string;
  organization_id: string;
  collection_id: string;
  item_id: string;
  network_id: number;
  contract_address: string;
  minter: string;
  token_id: Uint256Column;
  quantity: Uint256Column;
  price: Uint256Column;
  currency: string;
  net_recipient: string;
  fee_recipient: string;
  fee_amount: Uint256Column;
  nonce: Uint256Column;
  expiry: Uint256Column;
  signature: string;
  digest: string;
  issued_block: Uint256Column;
  status: Generated<MintVoucherStatus>;
  holder_kind: VoucherHolderKind;
  holder_id: string;
  redeemed_tx_hash: string | null;
  redeemed_block: NullableUint256Column;
  redeemed_token_id: NullableUint256Column;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ItemTypeRow = Selectable<ItemTypesTable>;
export type CollectionRow = Selectable<CollectionsTable>;
export type CollectionUpdate = Updateable<CollectionsTable>;
export type ItemRow = Selectable<ItemsTable>;
export type ItemReservationRow = Selectable<ItemReservationsTable>;
export type TokenRequestRow = Selectable<TokenRequestsTable>;
export type ProviderEventRow = Selectable<ProviderEventsTable>;
export type MarketingCampaignRow = Selectable<MarketingCampaignsTable>;
export type EmailIntegrationRow = Selectable<EmailIntegrationsTable>;
export type EmailTemplateRow = Selectable<EmailTemplatesTable>;
export type EmailClaimRow = Selectable<EmailClaimsTable>;
export type ListingRow = Selectable<ListingsTable>;
export type PurchaseIntentRow = Selectable<PurchaseIntentsTable>;
export type MintVoucherRow = Selectable<MintVouchersTable>;

/** An organization's crypto provider (see migrations/0014_crypto_provider.ts); secrets encrypted. */
export interface CryptoProviderConfigsTable {
  organization_id: string;
  api_key_id: string;
  api_key_secret_encrypted: string;
  webhook_secret_encrypted: string;
  network: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export type CryptoProviderConfigRow = Selectable<CryptoProviderConfigsTable>;
