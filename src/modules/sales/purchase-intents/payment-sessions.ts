import type { Deps } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { ListingRow, PaymentProvider, PurchaseIntentRow } from '../../../db/schema.ts';
import { ApiError } from '../../../lib/errors.ts';

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
 * A payment provider as purchase intents use it; each provider's module implements one, and
 * src/wiring/payment-sessions.ts lists them. Intents call these outside any database transaction that
 * holds a lock: a provider's answer may take seconds.
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

let loaded: Partial<Record<ExternalPaymentProvider, PaymentSessions>> | undefined;

/**
 * The provider's payment sessions (src/wiring/payment-sessions.ts, loaded on first use: the providers'
 * modules reach purchase intents, which reach this); NOT_READY when the service has none.
 */
export async function paymentSessionsOf(provider: ExternalPaymentProvider): Promise<PaymentSessions> {
  loaded ??= (await import('../../../wiring/payment-sessions.ts')).paymentSessions;
  const sessions = loaded[provider];
  if (!sessions) throw NOT_READY[provider]();
  return sessions;
}
