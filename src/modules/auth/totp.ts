import { authenticator as base } from 'otplib';

/** TOTP (RFC 6238): 30 s steps, 6 digits, one step of clock drift either way. */
const authenticator = base.clone({ window: 1, step: 30, digits: 6 });
const ISSUER = 'Token Issuance Service';

export function newTotpSecret(): string {
  return authenticator.generateSecret(20);
}

export function otpauthUrl(email: string, secret: string): string {
  return authenticator.keyuri(email, ISSUER, secret);
}

/**
 * Returns the time step a code belongs to, or undefined when it is wrong. Callers store the last
 * step used, so a code cannot be replayed within its validity window.
 */
export function totpStep(code: string, secret: string, now: number = Date.now()): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = authenticator.checkDelta(code, secret);
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / 30) + delta;
}

/** The current code (tests and tooling). */
export function currentTotp(secret: string): string {
  return authenticator.generate(secret);
}
