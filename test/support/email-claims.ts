import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestEnv } from '../harness.ts';
import { linkInMail, mailsTo } from './auth.ts';

/** Test helpers for email claims: the link and PIN as the recipient reads them from the outbox. */

/** The token of the latest REDEEM_NFT link mailed to `email`. */
export async function claimTokenFromMail(env: TestEnv, email: string): Promise<string> {
  const mail = (await mailsTo(env, email, 'REDEEM_NFT')).at(-1);
  assert.ok(mail, `a REDEEM_NFT mail was queued to ${email}`);
  const token = linkInMail(mail.text, '/claim').searchParams.get('token');
  assert.ok(token, 'the link carries a token');
  return token;
}

/** The PIN of the latest CLAIM_PINCODE mail to `email`. */
export async function pinFromMail(env: TestEnv, email: string): Promise<string> {
  const mail = (await mailsTo(env, email, 'CLAIM_PINCODE')).at(-1);
  assert.ok(mail, `a CLAIM_PINCODE mail was queued to ${email}`);
  const pin = /\b(\d{6})\b/.exec(mail.text)?.[1];
  assert.ok(pin, `the mail holds a 6-digit PIN: ${mail.text}`);
  return pin;
}

export interface ClaimClient {
  get(token: string, ip?: string): Promise<LightMyRequestResponse>;
  verify(token: string, ip?: string): Promise<LightMyRequestResponse>;
  redeem(token: string, body: { address: string; pin: string }, ip?: string): Promise<LightMyRequestResponse>;
}

/** The public routes, as the claim page calls them (no credentials). */
export function claimClient(env: TestEnv, defaultIp: () => string): ClaimClient {
  const path = (token: string) => `/v1/public/email-claims/${encodeURIComponent(token)}`;
  return {
    get: (token, ip = defaultIp()) => env.call('GET', path(token), { ip }),
    verify: (token, ip = defaultIp()) => env.call('POST', `${path(token)}/verify`, { ip }),
    redeem: (token, body, ip = defaultIp()) => env.call('POST', `${path(token)}/redeem`, { ip, body }),
  };
}
