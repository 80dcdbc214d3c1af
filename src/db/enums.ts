/**
 * The values of every enum-like text column, declared once. The column types (db/schema.ts) and
 * the wire schemas (StringEnum in http/schemas.ts) derive from these arrays; the migrations'
 * CHECK constraints are historical and are held equal to them by test/enums.test.ts.
 * The order is the order the API documents.
 */

/**
 * organizations.card_provider_connect_types (an array, no CHECK) and
 * card_provider_connected_accounts.connect_type.
 */
export const CARD_PROVIDER_CONNECT_TYPES = ['STANDARD', 'EXPRESS', 'CUSTOM'] as const;

/** card_provider_platform_accounts.mode: the provider's test or live keys. */
export const CARD_PROVIDER_MODES = ['TEST', 'LIVE'] as const;

/** user_tokens.purpose */
export const USER_TOKEN_PURPOSES = ['VERIFY', 'RESET_PASSWORD'] as const;

/** mail_outbox.status */
export const OUTBOX_STATUSES = ['PENDING', 'SENDING', 'SENT', 'FAILED'] as const;

/** wallets.kind */
export const WALLET_KINDS = ['ORGANIZATION', 'PLATFORM'] as const;

/** transactions.state */
export const TRANSACTION_STATES = ['PENDING', 'QUEUED', 'SUBMITTED', 'COMPLETED', 'CANCELLED'] as const;

/** transactions.type (the migrations give it no CHECK). */
export const TRANSACTION_TYPES = [
  'DEPLOY',
  'MINT',
  'TRANSFER',
  'FUNCTION_EXECUTE',
  'FUNDING',
  'VOUCHER_SETUP',
  'ROYALTY_UPDATE',
  'NONCE_GAP_FILL',
] as const;

/** transactions.on_chain_status: the receipt's status, null until mined. */
export const ON_CHAIN_STATUSES = ['SUCCESS', 'FAILURE'] as const;

/** networks.config.gasStrategy.type (inside JSON, so no CHECK). */
export const GAS_STRATEGY_TYPES = ['AUTO', 'EIP1559', 'LEGACY'] as const;

/** collections.reveal_strategy */
export const REVEAL_STRATEGIES = ['INSTANT', 'DELAYED'] as const;

/** collections.deployment_type */
export const DEPLOYMENT_TYPES = ['PLATFORM', 'CUSTOM', 'EXTERNAL'] as const;

/** collections.deployment_status */
export const DEPLOYMENT_STATUSES = ['PENDING', 'SUCCESS', 'FAILED'] as const;

/** collections.token_type, also a capability name (chain/capabilities.ts). */
export const TOKEN_TYPES = ['ERC721', 'ERC1155'] as const;

/** collections.token_id_assignment_strategy */
export const TOKEN_ID_ASSIGNMENT_STRATEGIES = ['AUTOMATIC', 'MANUAL', 'EXTERNAL'] as const;

/** items.token_status */
export const TOKEN_STATUSES = ['NOT_MINTED', 'MINTING', 'MINTED'] as const;

/** item_reservations.kind */
export const RESERVATION_KINDS = ['MINT', 'TRANSFER', 'LISTING', 'PURCHASE_INTENT', 'EMAIL_CLAIM'] as const;

/** mint_requests.state and transfer_requests.state */
export const REQUEST_STATES = ['PENDING', 'SUBMITTED', 'COMPLETED', 'FAILED'] as const;

/**
 * mint_requests.owner_kind, transfer_requests.owner_kind: what a token flow's record delivers for,
 * a request of its own or (owner_id) an email claim or a purchase intent.
 */
export const TOKEN_FLOW_OWNER_KINDS = ['REQUEST', 'EMAIL_CLAIM', 'PURCHASE_INTENT'] as const;

/** email_integrations.provider (neutral names: Mailgun, Amazon SES, any SMTP server). */
export const EMAIL_PROVIDERS = ['API_MAIL_PROVIDER', 'CLOUD_MAIL_PROVIDER', 'CUSTOM_SMTP'] as const;

/** email_templates.template_type */
export const TEMPLATE_TYPES = [
  'USER_INVITE',
  'FORGOT_PASSWORD_RESET',
  'REDEEM_NFT',
  'CLAIM_PINCODE',
  'CLAIMED_NFT',
  'USER_TEST',
] as const;

/** email_claims.tx_payer: the organization's relayer pays (SELLER) or the recipient mints with a voucher (BUYER). */
export const TX_PAYERS = ['SELLER', 'BUYER'] as const;

/** email_claims.deactivation_reason */
export const CLAIM_DEACTIVATION_REASONS = ['REVOKED', 'EXPIRED'] as const;

/** webhook_deliveries.status */
export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'SENDING', 'SUCCEEDED', 'FAILED'] as const;

/**
 * webhooks.events and webhook_events.type (no CHECK: a type is added here when its module starts
 * emitting it, and subscriptions may name a type before then), in the order the API documents.
 */
export const WEBHOOK_EVENT_TYPES = [
  'collection.deployed',
  'collection.deployment_failed',
  'item.minted',
  'item.transferred',
  'transaction.completed',
  'transaction.failed',
  'mint_request.completed',
  'mint_request.failed',
  'transfer_request.completed',
  'transfer_request.failed',
  'listing.created',
  'listing.cancelled',
  'listing.completed',
  'purchase_intent.created',
  'purchase_intent.confirmed',
  'purchase_intent.expired',
  'purchase_intent.fulfilled',
  'purchase_intent.unresolved',
  'purchase_intent.payment_mismatch',
  'email_claim.created',
  'email_claim.claimed',
  'email_claim.expired',
  'webhook.test',
] as const;
/** listings.status (docs/api.md#states). */
export const LISTING_STATUSES = ['PENDING_TX', 'ACTIVE', 'COMPLETE', 'CANCELLED'] as const;

/** purchase_intents.payment_provider; a listing's payment_providers take the same values. */
export const PAYMENT_PROVIDERS = ['CARD_PROVIDER', 'CRYPTO_PROVIDER', 'MINT_VOUCHER', 'EMAIL_CLAIM'] as const;

/** purchase_intents.status */
export const PURCHASE_INTENT_STATUSES = [
  'PENDING',
  'UNRESOLVED',
  'CANCELLED',
  'CONFIRMED',
  'EXPIRED',
] as const;

/** purchase_intents.fulfillment_status */
export const FULFILLMENT_STATUSES = ['PENDING', 'ASSIGNED', 'COMPLETED', 'EXCEPTION'] as const;

/** purchase_intents.fulfillment_method */
export const FULFILLMENT_METHODS = ['EMAIL', 'TRANSFER', 'VOUCHER'] as const;

/** mint_vouchers.status */
export const MINT_VOUCHER_STATUSES = ['PENDING', 'REDEEMED', 'EXPIRED', 'CANCELLED'] as const;

/** mint_vouchers.holder_kind: what the voucher delivers (an email claim or a purchase intent). */
export const VOUCHER_HOLDER_KINDS = ['EMAIL_CLAIM', 'PURCHASE_INTENT'] as const;

/**
 * crypto_provider_configs.network (no CHECK): the networks a Coinbase Business payment link is
 * paid on, as the Payment Link API names them; `base` is its default.
 */
export const CRYPTO_PROVIDER_NETWORKS = [
  'base',
  'ethereum',
  'arbitrum',
  'optimism',
  'polygon',
  'solana',
] as const;
