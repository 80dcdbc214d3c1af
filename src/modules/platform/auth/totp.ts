import { authenticator as base } from 'otplib';

const STEP_SECONDS = 30;
/** TOTP (RFC 6238): 30 s steps, 6 digits, one step of clock drift either way. */
const authenticator = base.clone({ window: 1, step: STEP_SECONDS, digits: 6 });
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
  // The code is checked and its step computed at the same instant: otplib otherwise reads its own
  // clock, and a step boundary crossed in between would record the wrong step.
  const delta = authenticator.clone({ epoch: now }).checkDelta(code, secret);
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / STEP_SECONDS) + delta;
}

/** The code at `now` (tests and tooling). */
export function currentTotp(secret: string, now: number = Date.now()): string {
  return authenticator.clone({ epoch: now }).generate(secret);
}
