import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com), computed here by hand: the
 * secret is `whsec_` and a base64 key; a signature is `v1,` and the base64 HMAC-SHA256, under the
 * decoded key, of `${webhook-id}.${webhook-timestamp}.${body}`. Several signatures (a rotated
 * secret and its successor) are space-separated in one `webhook-signature` header.
 */
export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of one attempt, signed by every secret given (the newest first). */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signature(secret, id, timestamp, body)).join(' '),
  };
}
