/**
 * The crypto-payment provider (CRYPTO_PROVIDER: Coinbase Business payment links in USDC) as
 * the service uses it. The real client signs each call with a CDP JWT made from the
 * organization's API key (pointed at COINBASE_BUSINESS_API_BASE in tests, where a local stand-in
 * verifies the JWT at the HTTP boundary); business code sees only this interface.
 */
export interface CryptoCredentials {
  readonly apiKeyId: string;
  /** PKCS#8 PEM of the EC P-256 key (ES256). */
  readonly apiKeySecret: string;
}

export interface PaymentLink {
  readonly id: string;
  readonly url: string;
  readonly status: string;
  readonly expiresAt: Date;
}

export interface CryptoPayments {
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
}
