import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import {
  assertMfaChallenge,
  assertRateLimited,
  assertSession,
  enrolMfa,
  freshIp,
  inviteUser,
  nextTotp,
  seedRateLimit,
  tokenFromLatestMail,
  wrongTotp,
} from '../../../../../test/support/auth.ts';
import { LIMITS } from '../auth.service.ts';

const NEW_PASSWORD = 'a brand new password';

describe('brute-force limits (docs/api.md#rate-limits)', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  before(async () => {
    env = await setupTest();
    organizationId = (await env.createOrganization()).id;
    admin = await env.createUser(organizationId, 'ORG_ADMIN');
  });
  after(() => env.close());

  const member = (email?: string) => env.createUser(organizationId, 'ORG_MEMBER', email);
  const post = (path: string, body: unknown, ip: string = freshIp(), token?: string) =>
    env.call('POST', path, { body, ip, ...(token && { token }) });
  const login = (email: string, password: string, ip: string = freshIp()) =>
    post('/v1/auth/login', { email, password }, ip);

  describe('log in', () => {
    it('locks an account after 10 failed log ins from any address, even for the right password', async () => {
      const actor = await member();
      for (let i = 0; i < LIMITS.failedLoginPerAccount.max; i++) {
        // Alternating case: the account is the email, whatever its case.
        const email = i % 2 ? actor.user.email.toUpperCase() : actor.user.email;
        assertError(await login(email, 'not the password'), 401, 'INVALID_CREDENTIALS');
      }
      assertRateLimited(await login(actor.user.email, actor.password), LIMITS.failedLoginPerAccount);
      // Other accounts are not affected.
      assertSession(await login(admin.user.email, admin.password), admin.user.id);
    });

    it('counts only failed log ins against the account', async () => {
      const actor = await member();
      const almost = LIMITS.failedLoginPerAccount.max - 1;
      await seedRateLimit(env, LIMITS.failedLoginPerAccount, actor.user.email, almost);
      for (let i = 0; i < 2; i++) assertSession(await login(actor.user.email, actor.password));
      assertError(await login(actor.user.email, 'not the password'), 401, 'INVALID_CREDENTIALS');
      assertRateLimited(await login(actor.user.email, actor.password), LIMITS.failedLoginPerAccount);
    });

    it('limits log in attempts per client address, failed or not', async () => {
      const actor = await member();
      const ip = freshIp();
      await seedRateLimit(env, LIMITS.loginPerIp, ip, LIMITS.loginPerIp.max - 2);
      assertError(await login('nobody-here@example.test', 'whatever', ip), 401, 'INVALID_CREDENTIALS');
      assertSession(await login(actor.user.email, actor.password, ip));
      assertRateLimited(await login(actor.user.email, actor.password, ip), LIMITS.loginPerIp);
      // Another address is not affected.
      assertSession(await login(actor.user.email, actor.password, freshIp()));
    });

    it('counts MFA log ins against the limit per client address', async () => {
      const actor = await member();
      const { secret } = await enrolMfa(env, actor.token);
      const mfaToken = assertMfaChallenge(await login(actor.user.email, actor.password));
      const ip = freshIp();
      await seedRateLimit(env, LIMITS.loginPerIp, ip, LIMITS.loginPerIp.max);
      const limited = await post('/v1/auth/login/mfa', { mfa_token: mfaToken, code: nextTotp(secret) }, ip);
      assertRateLimited(limited, LIMITS.loginPerIp);
      const allowed = await post('/v1/auth/login/mfa', { mfa_token: mfaToken, code: nextTotp(secret) });
      assertSession(allowed, actor.user.id);
    });

    it('locks the MFA step of an account after 10 wrong codes, even for a right code', async () => {
      const actor = await member();
      const { secret } = await enrolMfa(env, actor.token);
      const mfaToken = assertMfaChallenge(await login(actor.user.email, actor.password));
      for (let i = 0; i < LIMITS.failedLoginPerAccount.max; i++) {
        const wrong = await post('/v1/auth/login/mfa', { mfa_token: mfaToken, code: wrongTotp(secret) });
        assertError(wrong, 401, 'INVALID_CREDENTIALS');
      }
      const right = await post('/v1/auth/login/mfa', { mfa_token: mfaToken, code: nextTotp(secret) });
      assertRateLimited(right, LIMITS.failedLoginPerAccount);
    });

    it('counts concurrent wrong MFA codes without starving the database pool', async () => {
      const actor = await member();
      const { secret } = await enrolMfa(env, actor.token);
      const mfaToken = assertMfaChallenge(await login(actor.user.email, actor.password));
      // More concurrent attempts than the pool has connections (10), all on one user row.
      const attempts = await Promise.all(
        Array.from({ length: 14 }, () =>
          post('/v1/auth/login/mfa', { mfa_token: mfaToken, code: wrongTotp(secret) }),
        ),
      );
      for (const attempt of attempts) assert.ok([401, 429].includes(attempt.statusCode), attempt.body);
      const right = await post('/v1/auth/login/mfa', { mfa_token: mfaToken, code: nextTotp(secret) });
      assertRateLimited(right, LIMITS.failedLoginPerAccount);
    });
  });

  describe('change password', () => {
    it('counts wrong old passwords against the account, whatever the case of its email', async () => {
      const actor = await member(`Mixed.Case-${Date.now().toString(36)}@Example.test`);
      const account = actor.user.email.toLowerCase();
      await seedRateLimit(env, LIMITS.failedLoginPerAccount, account, LIMITS.failedLoginPerAccount.max - 1);
      const wrong = await post(
        '/v1/auth/change-password',
        { old_password: 'not the password', new_password: NEW_PASSWORD },
        freshIp(),
        actor.token,
      );
      assertError(wrong, 400, 'VALIDATION_FAILED');
      assertRateLimited(await login(actor.user.email, actor.password), LIMITS.failedLoginPerAccount);
      const right = await post(
        '/v1/auth/change-password',
        { old_password: actor.password, new_password: NEW_PASSWORD },
        freshIp(),
        actor.token,
      );
      assertRateLimited(right, LIMITS.failedLoginPerAccount);
    });

    it('counts concurrent wrong old passwords without starving the database pool', async () => {
      const actor = await member();
      const attempts = await Promise.all(
        Array.from({ length: 12 }, () =>
          post(
            '/v1/auth/change-password',
            { old_password: 'not the password', new_password: NEW_PASSWORD },
            freshIp(),
            actor.token,
          ),
        ),
      );
      for (const attempt of attempts) assert.ok([400, 429].includes(attempt.statusCode), attempt.body);
      assertRateLimited(await login(actor.user.email, actor.password), LIMITS.failedLoginPerAccount);
    });
  });

  describe('forgot password', () => {
    it('allows 5 requests per account an hour, then answers RATE_LIMITED from any address', async () => {
      const actor = await member();
      for (let i = 0; i < LIMITS.forgotPerAccount.max; i++) {
        const response = await post('/v1/auth/forgot-password', { email: actor.user.email });
        assert.equal(response.statusCode, 204, response.body);
      }
      const limited = await post('/v1/auth/forgot-password', { email: actor.user.email.toUpperCase() });
      assertRateLimited(limited, LIMITS.forgotPerAccount);
    });

    it('answers an unknown email the same: RATE_LIMITED after 5 requests', async () => {
      const email = 'nobody-limited@example.test';
      for (let i = 0; i < LIMITS.forgotPerAccount.max; i++) {
        const response = await post('/v1/auth/forgot-password', { email });
        assert.equal(response.statusCode, 204, response.body);
      }
      assertRateLimited(await post('/v1/auth/forgot-password', { email }), LIMITS.forgotPerAccount);
    });

    it('allows 20 requests per client address an hour', async () => {
      const ip = freshIp();
      for (let i = 0; i < LIMITS.forgotPerIp.max; i++) {
        const response = await post('/v1/auth/forgot-password', { email: `someone${i}@example.test` }, ip);
        assert.equal(response.statusCode, 204, response.body);
      }
      const limited = await post('/v1/auth/forgot-password', { email: 'someone-else@example.test' }, ip);
      assertRateLimited(limited, LIMITS.forgotPerIp);
      const elsewhere = await post('/v1/auth/forgot-password', { email: 'someone-else@example.test' });
      assert.equal(elsewhere.statusCode, 204, elsewhere.body);
    });
  });

  describe('reset password and verify', () => {
    const requestReset = async (email: string) => {
      const response = await post('/v1/auth/forgot-password', { email });
      assert.equal(response.statusCode, 204, response.body);
      return tokenFromLatestMail(env, email, 'FORGOT_PASSWORD_RESET');
    };

    it('allows 20 reset attempts per client address an hour, then refuses even a valid token', async () => {
      const actor = await member();
      const token = await requestReset(actor.user.email);
      const ip = freshIp();
      for (let i = 0; i < LIMITS.resetPerIp.max; i++) {
        const guess = await post(
          '/v1/auth/reset-password',
          { password: NEW_PASSWORD, token: `guess-${i}` },
          ip,
        );
        assertError(guess, 401, 'INVALID_CREDENTIALS');
      }
      const limited = await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token }, ip);
      assertRateLimited(limited, LIMITS.resetPerIp);
      // The refused request did not use the token up.
      assertSession(await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token }), actor.user.id);
    });

    it('allows 10 resets per account an hour', async () => {
      const actor = await member();
      const token = await requestReset(actor.user.email);
      await seedRateLimit(env, LIMITS.resetPerAccount, actor.user.id, LIMITS.resetPerAccount.max);
      const limited = await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token });
      assertRateLimited(limited, LIMITS.resetPerAccount);
      assertError(await login(actor.user.email, NEW_PASSWORD), 401, 'INVALID_CREDENTIALS');
    });

    it('limits verify attempts per client address', async () => {
      const invitee = await inviteUser(env, admin.token);
      const ip = freshIp();
      for (let i = 0; i < LIMITS.resetPerIp.max; i++) {
        const guess = await post(
          '/v1/auth/verify',
          { email: invitee.email, password: NEW_PASSWORD, token: `guess-${i}` },
          ip,
        );
        assertError(guess, 401, 'INVALID_CREDENTIALS');
      }
      const body = { email: invitee.email, password: NEW_PASSWORD, token: invitee.token };
      assertRateLimited(await post('/v1/auth/verify', body, ip), LIMITS.resetPerIp);
      assertSession(await post('/v1/auth/verify', body), invitee.id);
    });
  });
});
