/**
 * The card-payment provider (CARD_PROVIDER: Stripe Connect) as the service uses
 * it: Standard connected accounts, their onboarding links, PaymentIntents created as direct
 * charges on the connected account, and signed events. The real client wraps the official SDK
 * (stripe.ts, pointed at STRIPE_API_BASE in tests, where a local stand-in answers at the HTTP
 * boundary); business code sees only this interface. Every call names the platform account whose
 * secret key it is made with, since a platform may run several (TEST and LIVE).
 */
export interface CardPlatformCredentials {
  readonly secretKey: string;
}

export interface CardPaymentIntent {
  readonly id: string;
  readonly clientSecret: string;
  /** Stripe's status: requires_payment_method, requires_confirmation, processing, succeeded, canceled… */
  readonly status: string;
  readonly amount: bigint;
  /** What was received (0 until succeeded). */
  readonly amountReceived: bigint;
  /** Lower-case, as Stripe writes it (`usd`). */
  readonly currency: string;
}

/** A verified event, as the provider sent it. */
export interface CardEvent {
  readonly id: string;
  readonly type: string;
  /** The connected account a Connect event is about; null for the platform's own events. */
  readonly account: string | null;
}

/**
 * The provider failed or refused. `transient`: it could not be reached or answered 5xx / 429
 * (worth retrying); otherwise it refused the request (`code` says why, e.g.
 * `payment_intent_unexpected_state`). The message never holds a key.
 */
export class CardProviderError extends Error {
  constructor(
    message: string,
    readonly details: {
      readonly transient: boolean;
      readonly status: number | undefined;
      readonly type: string | undefined;
      readonly code: string | undefined;
    },
  ) {
    super(message);
    this.name = 'CardProviderError';
  }
}

/** The signature of an event did not verify (bad, missing or stale): nothing of it may be used. */
export class CardSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CardSignatureError';
  }
}

export interface CardPayments {
  createConnectedAccount(
    platform: CardPlatformCredentials,
    input: { type: 'standard'; email?: string; metadata?: Record<string, string>; idempotencyKey?: string },
  ): Promise<{ id: string; chargesEnabled: boolean; detailsSubmitted: boolean }>;
  accountStatus(
    platform: CardPlatformCredentials,
    accountId: string,
  ): Promise<{ chargesEnabled: boolean; detailsSubmitted: boolean }>;
  createAccountLink(
    platform: CardPlatformCredentials,
    input: { accountId: string; refreshUrl: string; returnUrl: string },
  ): Promise<{ url: string }>;
  /** A direct charge on the connected account; the same idempotency key never makes two. */
  createPaymentIntent(
    platform: CardPlatformCredentials,
    input: {
      accountId: string;
      amount: bigint;
      currency: string;
      applicationFeeAmount: bigint;
      metadata: Record<string, string>;
      idempotencyKey: string;
    },
  ): Promise<CardPaymentIntent>;
  retrievePaymentIntent(
    platform: CardPlatformCredentials,
    accountId: string,
    id: string,
  ): Promise<CardPaymentIntent>;
  /**
   * Cancels the PaymentIntent; one already canceled or succeeded is no error. Answers the
   * PaymentIntent's status afterwards (`canceled`, or `succeeded` when it was paid first).
   */
  cancelPaymentIntent(platform: CardPlatformCredentials, accountId: string, id: string): Promise<string>;
  /**
   * Verifies a webhook's signature header on the raw body against each of `secrets` (tolerance:
   * 300 s), then parses it. Throws CardSignatureError when no secret verifies it.
   */
  verifyEvent(rawBody: Buffer, signatureHeader: string | undefined, secrets: readonly string[]): CardEvent;
}
