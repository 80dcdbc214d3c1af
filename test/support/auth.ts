import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { ROLE_IDS, type RoleName } from '../../src/access/permissions.ts';
import type { RateLimit } from '../../src/http/rate-limit.ts';
import { currentTotp, totpStep } from '../../src/modules/platform/auth/totp.ts';
import { assertError } from '../assertions.ts';
import type { TestEnv } from '../harness.ts';

/** Helpers shared by the auth module's tests: sessions, MFA, rate limits, mailed tokens. */

/** Asserts 429 RATE_LIMITED with a Retry-After of whole seconds within the window. */
export function assertRateLimited(response: LightMyRequestResponse, limit: RateLimit): void {
  assertError(response, 429, 'RATE_LIMITED');
  const retryAfter = String(response.headers['retry-after']);
  assert.match(retryAfter, /^[1-9][0-9]*$/, `retry-after is whole seconds: ${retryAfter}`);
  assert.ok(Number(retryAfter) <= limit.windowSeconds, `retry-after ${retryAfter} is within the window`);
}

export interface SessionBody {
  access_token: string;
  user: { id: string; email: string; organization_id: string; mfa_enabled: boolean; active: boolean };
}

/** Asserts 200 {access_token, user} (and no MFA challenge), and returns it. */
export function assertSession(response: LightMyRequestResponse, userId?: string): SessionBody {
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json() as SessionBody & { mfa_required?: unknown };
  assert.deepEqual(Object.keys(body).sort(), ['access_token', 'user']);
  assert.equal(typeof body.access_token, 'string');
  assert.ok(body.access_token.length > 20);
  if (userId !== undefined) assert.equal(body.user.id, userId);
  return body;
}

/** Asserts 200 {mfa_required: true, mfa_token} (and no session), and returns the MFA token. */
export function assertMfaChallenge(response: LightMyRequestResponse): string {
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json() as { mfa_required: boolean; mfa_token: string };
  assert.deepEqual(Object.keys(body).sort(), ['mfa_required', 'mfa_token']);
  assert.equal(body.mfa_required, true);
  assert.equal(typeof body.mfa_token, 'string');
  return body.mfa_token;
}

let addresses = 0;
/** A client address no other test of the file uses, so per-IP limits never interfere. */
export function freshIp(): string {
  addresses++;
  return `203.0.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
}

/** Puts a rate-limit bucket at `hits` in a window that starts now (see src/http/rate-limit.ts). */
export async function seedRateLimit(env: TestEnv, limit: RateLimit, subject: string, hits: number) {
  const key = `${limit.name}:${subject}`;
  await sql`
    INSERT INTO rate_limit_buckets (key, window_start, hits) VALUES (${key}, now(), ${hits})
    ON CONFLICT (key) DO UPDATE SET window_start = now(), hits = EXCLUDED.hits`.execute(env.database.db);
}

/** Mails queued to an address, oldest first. */
export function mailsTo(env: TestEnv, address: string, templateType: string) {
  return env.database.db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('to_address', '=', address)
    .where('template_type', '=', templateType)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The link of a mail with the given path, e.g. /verify or /reset-password
 * (docs/api.md#authentication-and-roles).
 */
export function linkInMail(text: string, pathname: string): URL {
  const links = [...text.matchAll(/https?:\/\/[^\s"'<>()]+/g)].map((m) => new URL(m[0]));
  const link = links.find((url) => url.pathname === pathname);
  assert.ok(link, `the mail holds a ${pathname} link: ${text}`);
  return link;
}

/** The token of the latest mail of the type to the address. */
export async function tokenFromLatestMail(
  env: TestEnv,
  address: string,
  templateType: 'USER_INVITE' | 'FORGOT_PASSWORD_RESET',
): Promise<string> {
  const mails = await mailsTo(env, address, templateType);
  const mail = mails.at(-1);
  assert.ok(mail, `a ${templateType} mail was queued to ${address}`);
  const link = linkInMail(mail.text, templateType === 'USER_INVITE' ? '/verify' : '/reset-password');
  const token = link.searchParams.get('token');
  assert.ok(token, 'the link carries a token');
  return token;
}

let invited = 0;
/** Invites a user through the API (as `adminToken`) and returns its email and emailed verify token. */
export async function inviteUser(
  env: TestEnv,
  adminToken: string,
  role: RoleName = 'ORG_MEMBER',
): Promise<{ id: string; email: string; token: string }> {
  const email = `invited${++invited}-${Date.now().toString(36)}@example.test`;
  const response = await env.call('POST', '/v1/users', {
    token: adminToken,
    body: { email, role_id: ROLE_IDS[role] },
  });
  assert.equal(response.statusCode, 201, response.body);
  return { id: response.json().id, email, token: await tokenFromLatestMail(env, email, 'USER_INVITE') };
}

/** The code of the next 30 s step: accepted (one step of drift) and never the one just used. */
export function nextTotp(secret: string): string {
  return currentTotp(secret, Date.now() + 30_000);
}

/** A six-digit code that no step within the accepted drift produces. */
export function wrongTotp(secret: string): string {
  for (let n = 0; ; n++) {
    const code = String((Number(currentTotp(secret)) + 1 + n) % 1_000_000).padStart(6, '0');
    if (totpStep(code, secret) === undefined) return code;
  }
}

/** Enrols the caller in MFA; returns the secret and the new session's token. */
export async function enrolMfa(env: TestEnv, token: string): Promise<{ secret: string; token: string }> {
  const started = await env.call('POST', '/v1/me/mfa', { token });
  assert.equal(started.statusCode, 201, started.body);
  const secret = started.json().secret as string;
  const confirmed = await env.call('POST', '/v1/me/mfa/confirm', {
    token,
    body: { code: currentTotp(secret) },
  });
  const session = assertSession(confirmed);
  assert.equal(session.user.mfa_enabled, true);
  return { secret, token: session.access_token };
}
