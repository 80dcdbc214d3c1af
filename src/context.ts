import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { CredentialCache } from './access/credential-cache.ts';
import { type ChainClients, createChainClients } from './chain/clients.ts';
import type { Executor, Tx } from './db/executor.ts';
import type {
  Database,
  ListingRow,
  MintVoucherRow,
  PaymentProvider,
  ProviderEventRow,
  PurchaseIntentRow,
  TokenFlowOwnerKind,
  TokenRequestRow,
  TransactionRow,
  TransactionType,
  VoucherHolderKind,
} from './db/schema.ts';
import type { Config } from './lib/config.ts';
import { ApiError } from './lib/errors.ts';
import { createKeyring, type Keyring } from './lib/secrets.ts';
import type { CardPayments } from './providers/card/card-payments.ts';
import { createStripeCardPayments } from './providers/card/stripe.ts';
import { createCoinbasePayments } from './providers/crypto/coinbase.ts';
import type { CryptoPayments } from './providers/crypto/crypto-payments.ts';
import type { MailTransports } from './providers/mail/transport.ts';
import { createMailTransports } from './providers/mail/transports.ts';
import { createWebhookSender, type WebhookSender } from './providers/webhooks/sender.ts';

/**
 * Everything of the process that code outside it may use, built once at start (src/service.ts)
 * and passed in, never imported as a global: the database, configuration and secrets, every
 * client of the outside world (each behind a small interface of src/providers/ or src/chain/),
 * and the ports through which a lower tier calls a higher one.
 */
export interface AppContext {
  readonly config: Config;
  readonly db: Kysely<Database>;
  readonly keyring: Keyring;
  readonly logger: Logger;
  /** One JSON-RPC client per registered network, reused across requests and jobs. */
  readonly chain: ChainClients;
  /** The transport and sender of each organization's mail; closed when the process stops. */
  readonly mail: MailTransports;
  /** Card sales (CARD_PROVIDER: Stripe at STRIPE_API_BASE); platform accounts hold the keys. */
  readonly cardPayments: CardPayments;
  /**
   * Crypto sales (CRYPTO_PROVIDER): Coinbase Business payment links at COINBASE_BUSINESS_API_BASE,
   * each call signed with the organization's own API key (modules/payments/crypto-provider).
   */
  readonly cryptoPayments: CryptoPayments;
  /** POSTs to organizations' webhook endpoints, refusing private addresses unless allowed. */
  readonly webhooks: WebhookSender;
  /**
   * Principals of recently seen credentials (AUTH_CACHE_TTL), invalidated across instances by
   * LISTEN/NOTIFY; serves nothing until `credentials.listen` (the API role, at start) and is
   * closed when the process stops.
   */
  readonly credentials: CredentialCache;
  readonly ports: Ports;
}

/**
 * What a service receives besides its executor: the context without the database handle, so a
 * service runs its SQL on the executor its caller gives it (the caller owns the transaction).
 * The one convention for services: `fn(db: Executor, deps: Deps, …)`, `deps` only when more than
 * the database is needed. AppContext is a Deps, so routes pass `ctx`.
 */
export type Deps = Omit<AppContext, 'db'>;

// ---- Ports: declared here, filled once by src/wiring/ports.ts ----

/**
 * What a lower tier needs of a higher one, as interfaces of this tier and below. The wiring
 * fills every port when the process starts; nothing below the wiring imports what fills them.
 */
export interface Ports {
  /** What follows a settled transaction, by type (exhaustive). */
  readonly settlement: SettlementHandlers;
  /** What a token flow's owner does when its records settle, by owner kind (exhaustive). */
  readonly tokenFlowOwners: TokenFlowOwners;
  /** What a mint voucher's holder does when the voucher is redeemed or ends, by kind (exhaustive). */
  readonly voucherHolders: VoucherHolders;
  /** Each provider a buyer pays outside the chain; one missing cannot be sold through (NOT_READY). */
  readonly paymentSessions: Partial<Record<ExternalPaymentProvider, PaymentSessions>>;
  /** What each payment provider's module does with its verified events, by webhook. */
  readonly providerEvents: Partial<Record<ProviderWebhook, ProviderEventProcessor>>;
  /** What a listing asks of the flows that take its units (purchase intents, email claims). */
  readonly listingDeliveries: ListingDeliveries;
  /** What the relayer asks of a batch transaction (token flow deliveries) before sending it. */
  readonly batches: TransactionBatches;
}

/** A batch's calldata as composed from the entries it carries, and how many they are. */
export interface ComposedBatch {
  readonly data: string;
  readonly size: number;
}

/**
 * What a batch transaction carries is known to the flows whose records joined it; the relayer
 * closes and sends it. Each runs in the caller's database transaction (`compose` and `drop` with
 * the batch's row locked); none calls outside the database.
 */
export interface TransactionBatches {
  /** The calldata of the records the batch carries now; undefined when none is left. */
  compose(db: Tx, deps: Deps, transaction: TransactionRow): Promise<ComposedBatch | undefined>;
  /** Each entry alone: its record and the calldata of the same call with that entry only. */
  entries(
    db: Executor,
    deps: Deps,
    transaction: TransactionRow,
  ): Promise<readonly { readonly recordId: string; readonly data: string }[]>;
  /**
   * Takes entries out before the batch is sent (each alone makes it revert): their records FAILED
   * with the reason, their owners told; answers the batch composed again without them.
   */
  drop(
    db: Tx,
    deps: Deps,
    transaction: TransactionRow,
    failures: readonly { readonly recordIds: readonly string[]; readonly reason: string }[],
  ): Promise<ComposedBatch | undefined>;
}

/**
 * What follows one transaction type's settlement (COMPLETED or CANCELLED), run by the
 * transaction_settled job: `read` first, with no database transaction open (what the chain must
 * tell: a receipt's logs, a contract's symbol), then `settle` in one database transaction, which
 * locks, rechecks and writes. A job that runs again finds the state moved and changes nothing.
 */
export interface SettlementHandler<Reading = unknown> {
  read?(db: Executor, deps: Deps, transaction: TransactionRow): Promise<Reading>;
  settle(db: Tx, deps: Deps, transaction: TransactionRow, reading: Reading | undefined): Promise<void>;
}

/** One handler per transaction type, null where nothing follows from the chain. */
export type SettlementHandlers = { readonly [T in TransactionType]: SettlementHandler | null };

/**
 * A token flow's settled records of one owner: `succeeded` says whether their transaction did;
 * the records are COMPLETED or FAILED already (items and reservations done), and this runs once
 * for them, in the settlement's database transaction.
 */
export interface TokenFlowSettlement {
  readonly transaction: TransactionRow;
  readonly succeeded: boolean;
  readonly records: readonly TokenRequestRow[];
  /**
   * Why the records failed when it is not their transaction's outcome: taken out of their batch
   * before it was sent (the transaction is still on its way for the other records).
   */
  readonly reason?: string;
}

export type TokenFlowOwner = (db: Tx, deps: Deps, settlement: TokenFlowSettlement) => Promise<void>;

/** A handler for each owner kind but REQUEST, whose records speak for themselves. */
export type TokenFlowOwners = { readonly [K in Exclude<TokenFlowOwnerKind, 'REQUEST'>]: TokenFlowOwner };

/** A mint voucher holder's reactions to its voucher's outcome, run in the watcher's transaction. */
export interface VoucherHolder {
  /**
   * Redeemed on chain and `confirmations` deep: the voucher is REDEEMED, the item MINTED to the
   * minter and the holder's reservation of it ended before this runs. Runs once per voucher.
   */
  redeemed(db: Tx, deps: Deps, voucher: MintVoucherRow): Promise<void>;
  /**
   * The voucher can no longer be redeemed: EXPIRED (past `expiry` on chain) or CANCELLED (its
   * nonce was consumed by another voucher). The item is still reserved for the holder, which
   * releases or passes on its hold. Runs once per voucher.
   */
  ended(db: Tx, deps: Deps, voucher: MintVoucherRow): Promise<void>;
}

export type VoucherHolders = { readonly [K in VoucherHolderKind]: VoucherHolder };

/** The providers a buyer pays outside the chain, through a session opened at the provider. */
export const EXTERNAL_PAYMENT_PROVIDERS = ['CARD_PROVIDER', 'CRYPTO_PROVIDER'] as const;
export type ExternalPaymentProvider = (typeof EXTERNAL_PAYMENT_PROVIDERS)[number];

export function isExternalPaymentProvider(provider: PaymentProvider): provider is ExternalPaymentProvider {
  return (EXTERNAL_PAYMENT_PROVIDERS as readonly string[]).includes(provider);
}

/** A provider's payment session for one purchase intent, as it was opened. */
export interface PaymentSession {
  /**
   * The provider's id of the session, stored on the intent: card_provider_payment_intent_id
   * (a PaymentIntent) or crypto_provider_charge_id (a payment link).
   */
  readonly reference: string;
  /** The intent's `data`, as answered to the buyer (what a page needs to take the payment). */
  readonly data: Record<string, unknown>;
}

/** What the provider says of a session now. */
export type PaymentCheck =
  /** Paid: the amount in the smallest unit of `currency` (cents; USDC in cents too). */
  | { readonly state: 'PAID'; readonly amount: bigint; readonly currency: string }
  /** Still payable, or a payment in flight. */
  | { readonly state: 'OPEN' }
  /** Cancelled, expired or failed for good at the provider: it will never be paid. */
  | { readonly state: 'CLOSED' };

/**
 * A payment provider as purchase intents and listings use it. Called outside any database
 * transaction that holds a lock: a provider's answer may take seconds.
 */
export interface PaymentSessions {
  /**
   * Whether the organization may sell through the provider: checked when a listing naming it is
   * created; throws 422 CARD_PROVIDER_NOT_READY or CRYPTO_PROVIDER_NOT_READY.
   */
  assertReady(db: Executor, deps: Deps, organizationId: string): Promise<void>;
  /**
   * The session length when the listing's policy sets none for this provider (the card
   * platform account's session_timeout_minutes); undefined for the policy's default.
   */
  defaultSessionSeconds(db: Executor, deps: Deps, organizationId: string): Promise<number | undefined>;
  /**
   * Opens the provider's session for a PENDING intent (amount: `intent.provider_price`, the
   * listing's currency). Opened again for the same intent (a create retried after a crash), it
   * returns the same session: the provider's idempotency key is the intent id. Throws an ApiError
   * UPSTREAM_FAILED when the provider fails or refuses, NOT_READY when the set-up went away.
   */
  open(db: Executor, deps: Deps, intent: PurchaseIntentRow, listing: ListingRow): Promise<PaymentSession>;
  /**
   * Ends the session at the provider (the intent expired or was cancelled), so it can no longer
   * be paid; a session already ended is no error. Throws when the provider cannot be reached
   * (the caller retries).
   */
  cancel(db: Executor, deps: Deps, intent: PurchaseIntentRow): Promise<void>;
  /** Asks the provider about the intent's session (reconciliation of a missed event). */
  check(db: Executor, deps: Deps, intent: PurchaseIntentRow): Promise<PaymentCheck>;
}

const NOT_READY: Record<ExternalPaymentProvider, () => ApiError> = {
  CARD_PROVIDER: () =>
    new ApiError('CARD_PROVIDER_NOT_READY', 'card payments are not available on this service'),
  CRYPTO_PROVIDER: () =>
    new ApiError('CRYPTO_PROVIDER_NOT_READY', 'crypto payments are not available on this service'),
};

/** The provider's payment sessions; 422 NOT_READY when the service has none. */
export function paymentSessionsOf(deps: Deps, provider: ExternalPaymentProvider): PaymentSessions {
  const sessions = deps.ports.paymentSessions[provider];
  if (!sessions) throw NOT_READY[provider]();
  return sessions;
}

/** The webhooks payment providers send their events to, as their URLs name them. */
export type ProviderWebhook = 'card-provider' | 'crypto-provider';

/**
 * What a provider's module does with one of its recorded events, in the transaction that marks
 * it processed: it acts on the state it finds, since a failed attempt is retried from the
 * stored payload.
 */
export type ProviderEventProcessor = (db: Tx, deps: Deps, event: ProviderEventRow) => Promise<void>;

/** What a listing asks of the flows that take its units. */
export interface ListingDeliveries {
  /** Locks the listing's PENDING intents: before the listing, the order every intent's path takes. */
  lockPendingIntents(db: Executor, listingId: string): Promise<void>;
  /** Cancels the listing's PENDING intents; their holds end. */
  cancelPendingIntents(db: Executor, listingId: string): Promise<void>;
  /**
   * Units sold that an ended ERC-1155 listing's reservation still covers: its intents in delivery
   * and the claims that may still deliver (`exceptClaim`, one being finished, left out).
   */
  unitsOwed(db: Executor, listingId: string, exceptClaim?: string): Promise<bigint>;
}

/**
 * The context of a process (or a test) over an open database, its ports filled by the wiring;
 * every outside-world client is new.
 */
export function createAppContext(
  config: Config,
  db: Kysely<Database>,
  logger: Logger,
  ports: Ports,
): AppContext {
  const keyring = createKeyring(config.secretKey);
  return {
    config,
    db,
    keyring,
    logger,
    chain: createChainClients(),
    mail: createMailTransports(config, db, keyring),
    cardPayments: createStripeCardPayments({ apiBase: config.card.stripeApiBase }),
    cryptoPayments: createCoinbasePayments(config.cryptoProvider.apiBase),
    webhooks: createWebhookSender({ allowPrivateUrls: config.webhooks.allowPrivateUrls }),
    credentials: new CredentialCache(config.authCacheTtlSeconds),
    ports,
  };
}
