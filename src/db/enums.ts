/**
 * The values of every enum-like text column, declared once. The column types (db/schema.ts) and
 * the wire schemas (StringEnum in http/schemas.ts) derive from these arrays; the migrations'
 * CHECK constraints are historical and are held equal to them by test/enums.test.ts.
 * The order is the order the API documents.
 */

/** organizations.card_provider_connect_types, an array (no CHECK). */
export const CARD_PROVIDER_CONNECT_TYPES = ['STANDARD', 'EXPRESS', 'CUSTOM'] as const;

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
