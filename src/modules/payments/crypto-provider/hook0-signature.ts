import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The header CDP's webhooks (delivered by Hook0) carry their signature in. */
export const HOOK0_SIGNATURE_HEADER = 'x-hook0-signature';
/** A delivery signed longer ago than this is refused: a replay of a captured request. */
export const HOOK0_TOLERANCE_SECONDS = 5 * 60;

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/**
 * Checks `X-Hook0-Signature: t=<unix seconds>,h=<header names, space-separated>,v1=<hex>` (other
 * parts, such as the legacy v0, are ignored): v1 is the hex HMAC-SHA256, keyed with the
 * subscription's secret, of `t`, `h`, the values of the headers `h` names joined by `.`, and the
 * raw body, each joined by `.`. Compared in constant time; `t` must be within 5 minutes of now.
 */
export function verifyHook0Signature(
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  secret: string,
  now: Date = new Date(),
): SignatureCheck {
  const header = headers[HOOK0_SIGNATURE_HEADER];
  if (typeof header !== 'string' || header.length === 0)
    return { ok: false, reason: 'X-Hook0-Signature is missing' };
  const parts = new Map<string, string>();
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at > 0) parts.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  const t = parts.get('t');
  const h = parts.get('h');
  const v1 = parts.get('v1');
  if (
    t === undefined ||
    !/^\d{1,12}$/.test(t) ||
    h === undefined ||
    v1 === undefined ||
    !/^[0-9a-f]{64}$/i.test(v1)
  )
    return { ok: false, reason: 'X-Hook0-Signature is malformed (t=…,h=…,v1=…)' };
  const age = Math.floor(now.getTime() / 1000) - Number(t);
  if (Math.abs(age) > HOOK0_TOLERANCE_SECONDS)
    return { ok: false, reason: 'X-Hook0-Signature is stale (signed more than 5 minutes from now)' };
  const names = h.split(' ').filter((name) => name.length > 0);
  const values: string[] = [];
  for (const name of names) {
    const value = headers[name.toLowerCase()];
    if (typeof value !== 'string') return { ok: false, reason: `the signed header ${name} is missing` };
    values.push(value);
  }
  const expected = hook0Signature(secret, t, h, values, rawBody);
  const given = Buffer.from(v1.toLowerCase(), 'hex');
  if (!timingSafeEqual(Buffer.from(expected, 'hex'), given))
    return { ok: false, reason: 'X-Hook0-Signature does not match the body' };
  return { ok: true };
}

/** The v1 signature of a delivery (hex). */
export function hook0Signature(
  secret: string,
  t: string,
  headerNames: string,
  headerValues: readonly string[],
  rawBody: Buffer,
): string {
  return createHmac('sha256', secret)
    .update(`${t}.${headerNames}.${headerValues.join('.')}.`)
    .update(rawBody)
    .digest('hex');
}
