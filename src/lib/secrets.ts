import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Keys derived from SECRET_KEY, one per purpose, so a key used to sign tokens never doubles as
 * the key that encrypts secrets at rest.
 */
export interface Keyring {
  /** HMAC key for access and MFA tokens (HS256). */
  readonly tokenSigningKey: Uint8Array;
  /** HMAC key for list cursors (HMAC-SHA256): a client cannot make up a page position. */
  readonly cursorSigningKey: Uint8Array;
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

const VERSION = 'v1';

export function createKeyring(secretKey: string): Keyring {
  const derive = (purpose: string) =>
    new Uint8Array(hkdfSync('sha256', secretKey, 'token-issuance-service', purpose, 32));
  const encryptionKey = derive('encryption-at-rest');
  return {
    tokenSigningKey: derive('token-signing'),
    cursorSigningKey: derive('cursor-signing'),
    // AES-256-GCM; stored as v1.<iv>.<tag>.<ciphertext>, each base64url.
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), body]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    decrypt(ciphertext) {
      const [version, iv, tag, body] = ciphertext.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) {
        throw new Error('unrecognised ciphertext format');
      }
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

/**
 * Digest for high-entropy secrets (API keys, emailed tokens): they cannot be guessed, so a fast
 * hash is enough, and it lets the row be found by an index lookup.
 */
export function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
