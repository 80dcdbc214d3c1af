import { randomBytes, randomFillSync } from 'node:crypto';

// Random bytes for ids, drawn from the CSPRNG 256 ids at a time (as node's randomUUID does): one
// call per id cost a request more than its routing (every request gets an id), and each
// id's 16 bytes are used once.
const ID_POOL = Buffer.alloc(16 * 256);
let idPoolOffset = ID_POOL.length;

/**
 * UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits, so ids sort by creation time
 * and index well. Generated in code because PostgreSQL 15 has no uuidv7().
 */
export function uuidv7(now: number = Date.now()): string {
  if (idPoolOffset === ID_POOL.length) {
    randomFillSync(ID_POOL);
    idPoolOffset = 0;
  }
  const bytes = ID_POOL.subarray(idPoolOffset, idPoolOffset + 16);
  idPoolOffset += 16;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A URL-safe random secret with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A UUID in its canonical hyphenated form, any case (no braces, no `urn:uuid:`). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
