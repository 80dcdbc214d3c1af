import type { RateLimit } from '../../../http/rate-limit.ts';

/** The rules of email claims' lifetimes, PINs and public routes (docs/api.md#email-claims). */

/** How long a claim stays redeemable when created without an expiration. */
export const DEFAULT_CLAIM_TTL_MS = 7 * 24 * 3600 * 1000;
export const PIN_TTL_MINUTES = 15;
/** At most one PIN mail a minute per claim (docs/api.md#email-claims). */
export const PIN_MAIL_INTERVAL_MS = 60_000;
/** The 5th wrong try burns the PIN. */
export const MAX_PIN_TRIES = 5;

/** Per client address limits of the public routes, against guessing (docs/api.md#email-claims). */
export const LIMITS = {
  readPerIp: { name: 'claim-read:ip', max: 120, windowSeconds: 60 },
  verifyPerIp: { name: 'claim-verify:ip', max: 20, windowSeconds: 3600 },
  redeemPerIp: { name: 'claim-redeem:ip', max: 30, windowSeconds: 15 * 60 },
} as const satisfies Record<string, RateLimit>;
