/**
 * The card-payment provider (CARD_PROVIDER: Stripe Connect) as the service uses
 * it: Standard connected accounts, their onboarding links, PaymentIntents created as direct
 * charges on the connected account, and signed events. The real client wraps the official SDK
 * (pointed at STRIPE_API_BASE in tests, where a local stand-in answers at the HTTP boundary);
 * business code sees only this interface. Every call names the platform account whose secret key
 * it is made with, since a platform may run several (TEST and LIVE).
 */
export interface CardPlatformCredentials {
  readonly secretKey: string;
}

export interface CardPaymentIntent {
  readonly id: string;
  readonly clientSecret: string;
  readonly status: string;
  readonly amount: bigint;
  readonly currency: string;
}

export interface CardPayments {
  createConnectedAccount(
    platform: CardPlatformCredentials,
    input: { email?: string },
  ): Promise<{ id: string }>;
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
  cancelPaymentIntent(platform: CardPlatformCredentials, accountId: string, id: string): Promise<void>;
}
