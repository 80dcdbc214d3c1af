import { ApiError } from '../../lib/errors.ts';

/**
 * The crypto-payment provider (CRYPTO_PROVIDER: Coinbase Business payment links in USDC) as
 * the service uses it. The real client (coinbase.ts) signs each call with a CDP JWT made from the
 * organization's API key (pointed at COINBASE_BUSINESS_API_BASE in tests, where a local stand-in
 * verifies the JWT at the HTTP boundary); business code sees only this interface.
 */
export interface CryptoCredentials {
  readonly apiKeyId: string;
  /** PKCS#8 PEM of the EC P-256 key (ES256). */
  readonly apiKeySecret: string;
}

/** A payment link as the provider answers it (the fields the service reads). */
export interface PaymentLink {
  readonly id: string;
  readonly url: string;
  /** ACTIVE, COMPLETED, EXPIRED, DEACTIVATED, FAILED (the provider's words). */
  readonly status: string;
  /** USDC, a decimal string ("12.50"). */
  readonly amount: string;
  readonly currency: string;
  readonly network: string;
  readonly expiresAt: Date | null;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface CryptoPayments {
  /**
   * Creates a payment link. The same idempotency key within the provider's window answers the
   * link created first (X-Idempotency-Key), so a retried create never opens a second link.
   */
  createPaymentLink(
    credentials: CryptoCredentials,
    input: {
      /** USDC, as a decimal string with two decimals ("12.50"). */
      amount: string;
      network: string;
      description: string;
      expiresAt: Date;
      metadata: Record<string, string>;
      idempotencyKey: string;
    },
  ): Promise<PaymentLink>;
  retrievePaymentLink(credentials: CryptoCredentials, id: string): Promise<PaymentLink>;
  /** Ends an ACTIVE link so it can no longer be paid. */
  deactivatePaymentLink(credentials: CryptoCredentials, id: string): Promise<PaymentLink>;
}

/**
 * The provider failed or refused (always 502 UPSTREAM_FAILED to our callers); `providerStatus` is
 * its HTTP status (undefined when it could not be reached), so a caller can tell a refusal (4xx)
 * from an outage.
 */
export class CryptoProviderError extends ApiError {
  constructor(
    detail: string,
    readonly providerStatus: number | undefined,
  ) {
    super('UPSTREAM_FAILED', detail);
    this.name = 'CryptoProviderError';
  }
}
