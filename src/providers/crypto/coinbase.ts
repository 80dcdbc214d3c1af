import { createPrivateKey, type KeyObject, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { printable } from '../../lib/text.ts';
import {
  type CryptoCredentials,
  type CryptoPayments,
  CryptoProviderError,
  type PaymentLink,
} from './crypto-payments.ts';

/** A payment-link call answers in well under this; past it the intent's create fails with 502. */
const REQUEST_TIMEOUT_MS = 15_000;
/** CDP accepts tokens valid for at most 2 minutes; its own SDKs sign for 120 s. */
const JWT_LIFETIME_SECONDS = 120;
const PAYMENT_LINKS_PATH = '/api/v1/payment-links';
const MAX_DETAIL_LENGTH = 300;

/**
 * The Coinbase Business Payment Link API over fetch: every request carries a fresh CDP JWT
 * (ES256, signed with the organization's API key) bound to its method, host and path, the way
 * CDP's SDKs sign. `apiBase` is COINBASE_BUSINESS_API_BASE (a local stand-in in tests).
 */
export function createCoinbasePayments(apiBase: string): CryptoPayments {
  const base = new URL(apiBase);

  async function call(
    credentials: CryptoCredentials,
    method: 'GET' | 'POST',
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<PaymentLink> {
    const url = new URL(path, base);
    const token = await cdpJwt(credentials, method, url.host, url.pathname);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(options.body !== undefined && { 'content-type': 'application/json' }),
          ...options.headers,
        },
        ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new CryptoProviderError(
        `the crypto provider could not be reached (${printable((error as Error).message)})`,
        undefined,
      );
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      const what = response.status >= 500 ? 'failed' : 'refused the request';
      throw new CryptoProviderError(
        `the crypto provider ${what} (HTTP ${response.status}${providerMessage(text)})`,
        response.status,
      );
    }
    const link = paymentLinkOf(text);
    if (!link) throw new CryptoProviderError('the crypto provider answered no payment link', response.status);
    return link;
  }

  return {
    createPaymentLink(credentials, input) {
      return call(credentials, 'POST', PAYMENT_LINKS_PATH, {
        body: {
          amount: input.amount,
          currency: 'USDC',
          network: input.network,
          description: input.description,
          expiresAt: input.expiresAt.toISOString(),
          metadata: input.metadata,
        },
        // Documented by the Payment Link API: a retry with the same key answers the first link.
        headers: { 'x-idempotency-key': input.idempotencyKey },
      });
    },
    retrievePaymentLink(credentials, id) {
      return call(credentials, 'GET', `${PAYMENT_LINKS_PATH}/${encodeURIComponent(id)}`);
    },
    deactivatePaymentLink(credentials, id) {
      return call(credentials, 'POST', `${PAYMENT_LINKS_PATH}/${encodeURIComponent(id)}/deactivate`);
    },
  };
}

/**
 * The CDP API key JWT: claims iss "cdp", sub the key id, nbf now, exp now + 120 s, uris
 * ["<METHOD> <host><path>"] (host without scheme, with its port if any); header alg ES256, kid
 * the key id, typ JWT and a random nonce, so no two tokens are alike.
 */
export async function cdpJwt(
  credentials: CryptoCredentials,
  method: string,
  host: string,
  path: string,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ uris: [`${method} ${host}${path}`] })
    .setProtectedHeader({
      alg: 'ES256',
      kid: credentials.apiKeyId,
      typ: 'JWT',
      nonce: randomBytes(16).toString('hex'),
    })
    .setIssuer('cdp')
    .setSubject(credentials.apiKeyId)
    .setNotBefore(now)
    .setExpirationTime(now + JWT_LIFETIME_SECONDS)
    .sign(signingKey(credentials.apiKeySecret));
}

/**
 * The API key's private key: an EC P-256 key in PEM, PKCS#8 (`BEGIN PRIVATE KEY`) or SEC1 (`BEGIN
 * EC PRIVATE KEY`, as CDP's portal shows it); undefined when the text is no such key.
 */
export function parseApiKeySecret(pem: string): KeyObject | undefined {
  try {
    const key = createPrivateKey({ key: pem.replace(/\\n/g, '\n'), format: 'pem' });
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
      return undefined;
    return key;
  } catch {
    return undefined;
  }
}

function signingKey(pem: string): KeyObject {
  const key = parseApiKeySecret(pem);
  // Checked when the organization saved it: only a corrupted store gets here.
  if (!key) throw new Error('the crypto provider API key secret is not an EC P-256 private key');
  return key;
}

/** The provider's error sentence (errorMessage, message or error), printable and bounded. */
function providerMessage(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const message = [body.errorMessage, body.message, body.error].find((m) => typeof m === 'string');
    return typeof message === 'string' ? `: ${printable(message).slice(0, MAX_DETAIL_LENGTH)}` : '';
  } catch {
    return '';
  }
}

function paymentLinkOf(text: string): PaymentLink | undefined {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { id, url, status, amount, currency, network, expiresAt, metadata } = body;
  if (typeof id !== 'string' || typeof url !== 'string' || typeof status !== 'string') return undefined;
  const expiry = typeof expiresAt === 'string' ? new Date(expiresAt) : null;
  return {
    id,
    url,
    status,
    amount: typeof amount === 'string' ? amount : '',
    currency: typeof currency === 'string' ? currency : '',
    network: typeof network === 'string' ? network : '',
    expiresAt: expiry && !Number.isNaN(expiry.getTime()) ? expiry : null,
    metadata: stringRecord(metadata),
  };
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
