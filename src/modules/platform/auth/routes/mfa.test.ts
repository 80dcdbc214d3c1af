import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import {
  assertMfaChallenge,
  assertSession,
  enrolMfa,
  freshIp,
  nextTotp,
  tokenFromLatestMail,
  wrongTotp,
} from '../../../../../test/support/auth.ts';
import { signToken } from '../tokens.ts';
import { currentTotp } from '../totp.ts';

describe('MFA', () => {
  let env: TestEnv;
  let organizationId: string;
  before(async () => {
    env = await setupTest();
    organizationId = (await env.createOrganization()).id;
  });
  after(() => env.close());

  const member = () => env.createUser(organizationId, 'ORG_MEMBER');
  const login = (actor: Actor) =>
    env.call('POST', '/v1/auth/login', {
      body: { email: actor.user.email, password: actor.password },
      ip: freshIp(),
    });
  const finish = (mfaToken: string, code: string) =>
    env.call('POST', '/v1/auth/login/mfa', { body: { mfa_token: mfaToken, code }, ip: freshIp() });

  describe('enrolment: POST /v1/me/mfa and /v1/me/mfa/confirm', () => {
    it('starts enrolment with 201 {secret, otpauth_url} and leaves MFA off until confirmed', async () => {
      const actor = await member();
      const started = await env.call('POST', '/v1/me/mfa', { token: actor.token });
      assert.equal(started.statusCode, 201, started.body);
      const body = started.json() as { secret: string; otpauth_url: string };
      assert.deepEqual(Object.keys(body).sort(), ['otpauth_url', 'secret']);
      assert.match(body.secret, /^[A-Z2-7]{16,}=*$/, 'a base32 secret');
      const url = new URL(body.otpauth_url);
      assert.equal(url.protocol, 'otpauth:');
      assert.equal(url.host, 'totp');
      assert.equal(url.searchParams.get('secret'), body.secret);
      assert.ok(decodeURIComponent(url.pathname).includes(actor.user.email));
      const me = await env.call('GET', '/v1/me', { token: actor.token });
      assert.equal(me.json().user.mfa_enabled, false);
      assertSession(await login(actor), actor.user.id);
    });

    it('turns MFA on with a right code and answers 200 with a new working session', async () => {
      const actor = await member();
      const started = await env.call('POST', '/v1/me/mfa', { token: actor.token });
      const secret = started.json().secret as string;
      const confirmed = await env.call('POST', '/v1/me/mfa/confirm', {
        token: actor.token,
        body: { code: currentTotp(secret) },
      });
      const session = assertSession(confirmed, actor.user.id);
      assert.equal(session.user.mfa_enabled, true);
      const me = await env.call('GET', '/v1/me', { token: session.access_token });
      assert.equal(me.statusCode, 200, me.body);
      assert.equal(me.json().user.mfa_enabled, true);
    });

    it('revokes older access tokens when MFA is turned on', async () => {
      const actor = await member();
      const otherSession = assertSession(await login(actor)).access_token;
      await enrolMfa(env, actor.token);
      assertError(await env.call('GET', '/v1/me', { token: actor.token }), 401, 'UNAUTHENTICATED');
      assertError(await env.call('GET', '/v1/me', { token: otherSession }), 401, 'UNAUTHENTICATED');
    });

    it('answers VALIDATION_FAILED on /code for a wrong code, and MFA stays off', async () => {
      const actor = await member();
      const started = await env.call('POST', '/v1/me/mfa', { token: actor.token });
      const secret = started.json().secret as string;
      const confirmed = await env.call('POST', '/v1/me/mfa/confirm', {
        token: actor.token,
        body: { code: wrongTotp(secret) },
      });
      const error = assertError(confirmed, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/code'],
      );
      const me = await env.call('GET', '/v1/me', { token: actor.token });
      assert.equal(me.statusCode, 200, 'the session was not revoked');
      assert.equal(me.json().user.mfa_enabled, false);
    });

    it('answers VALIDATION_FAILED for a code that is not six digits', async () => {
      const actor = await member();
      await env.call('POST', '/v1/me/mfa', { token: actor.token });
      for (const code of ['12345', '1234567', 'abcdef']) {
        const response = await env.call('POST', '/v1/me/mfa/confirm', { token: actor.token, body: { code } });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });

    it('answers INVALID_STATE when confirming before enrolment started', async () => {
      const actor = await member();
      const response = await env.call('POST', '/v1/me/mfa/confirm', {
        token: actor.token,
        body: { code: '123456' },
      });
      assertError(response, 409, 'INVALID_STATE');
    });

    it('answers INVALID_STATE when enrolling or confirming while MFA is already on', async () => {
      const actor = await member();
      const { token, secret } = await enrolMfa(env, actor.token);
      assertError(await env.call('POST', '/v1/me/mfa', { token }), 409, 'INVALID_STATE');
      const again = await env.call('POST', '/v1/me/mfa/confirm', { token, body: { code: nextTotp(secret) } });
      assertError(again, 409, 'INVALID_STATE');
    });

    it('confirms with the latest secret when enrolment is started twice', async () => {
      const actor = await member();
      const first = (await env.call('POST', '/v1/me/mfa', { token: actor.token })).json().secret as string;
      const second = (await env.call('POST', '/v1/me/mfa', { token: actor.token })).json().secret as string;
      assert.notEqual(first, second);
      const stale = await env.call('POST', '/v1/me/mfa/confirm', {
        token: actor.token,
        body: { code: currentTotp(first) },
      });
      assertError(stale, 400, 'VALIDATION_FAILED');
      const confirmed = await env.call('POST', '/v1/me/mfa/confirm', {
        token: actor.token,
        body: { code: currentTotp(second) },
      });
      assertSession(confirmed, actor.user.id);
    });

    it('answers UNAUTHENTICATED without credentials', async () => {
      assertError(await env.call('POST', '/v1/me/mfa'), 401, 'UNAUTHENTICATED');
      assertError(
        await env.call('POST', '/v1/me/mfa/confirm', { body: { code: '123456' } }),
        401,
        'UNAUTHENTICATED',
      );
    });
  });

  describe('log in with MFA: POST /v1/auth/login/mfa', () => {
    it('answers 200 {mfa_required: true, mfa_token} instead of a session to a user with MFA', async () => {
      const actor = await member();
      await enrolMfa(env, actor.token);
      assertMfaChallenge(await login(actor));
    });

    it('answers a session for the MFA token and a right code', async () => {
      const actor = await member();
      const { secret } = await enrolMfa(env, actor.token);
      const mfaToken = assertMfaChallenge(await login(actor));
      const session = assertSession(await finish(mfaToken, nextTotp(secret)), actor.user.id);
      assert.equal(session.user.mfa_enabled, true);
      const me = await env.call('GET', '/v1/me', { token: session.access_token });
      assert.equal(me.statusCode, 200, me.body);
    });

    it('answers INVALID_CREDENTIALS for a wrong code', async () => {
      const actor = await member();
      const { secret } = await enrolMfa(env, actor.token);
      const mfaToken = assertMfaChallenge(await login(actor));
      assertError(await finish(mfaToken, wrongTotp(secret)), 401, 'INVALID_CREDENTIALS');
      // The MFA token stays usable with a right code.
      assertSession(await finish(mfaToken, nextTotp(secret)), actor.user.id);
    });

    it('rejects a code that was already used to log in', async () => {
      const actor = await member();
      const { secret } = await enrolMfa(env, actor.token);
      const code = nextTotp(secret);
      assertSession(await finish(assertMfaChallenge(await login(actor)), code), actor.user.id);
      const replayed = await finish(assertMfaChallenge(await login(actor)), code);
      assertError(replayed, 401, 'INVALID_CREDENTIALS');
    });

    it('rejects the code that confirmed enrolment', async () => {
      const actor = await member();
      const started = await env.call('POST', '/v1/me/mfa', { token: actor.token });
      const secret = started.json().secret as string;
      const code = currentTotp(secret);
      const confirmed = await env.call('POST', '/v1/me/mfa/confirm', { token: actor.token, body: { code } });
      assertSession(confirmed);
      assertError(await finish(assertMfaChallenge(await login(actor)), code), 401, 'INVALID_CREDENTIALS');
    });

    it('answers INVALID_CREDENTIALS for an access token used as mfa_token', async () => {
      const actor = await member();
      const { secret, token } = await enrolMfa(env, actor.token);
      assertError(await finish(token, nextTotp(secret)), 401, 'INVALID_CREDENTIALS');
      assertError(await finish('garbage', nextTotp(secret)), 401, 'INVALID_CREDENTIALS');
    });

    it('answers INVALID_CREDENTIALS for an expired MFA token', async () => {
      const actor = await member();
      const { secret } = await enrolMfa(env, actor.token);
      const row = await env.database.db
        .selectFrom('users')
        .select('session_version')
        .where('id', '=', actor.user.id)
        .executeTakeFirstOrThrow();
      const claims = { userId: actor.user.id, sessionVersion: row.session_version };
      const expired = await signToken(env.ctx.keyring, 'mfa', claims, -1);
      assertError(await finish(expired, nextTotp(secret)), 401, 'INVALID_CREDENTIALS');
      const valid = await signToken(env.ctx.keyring, 'mfa', claims, 60);
      assertSession(await finish(valid, nextTotp(secret)), actor.user.id);
    });

    it('answers UNAUTHENTICATED for an MFA token used as an access token', async () => {
      const actor = await member();
      await enrolMfa(env, actor.token);
      const mfaToken = assertMfaChallenge(await login(actor));
      assertError(await env.call('GET', '/v1/me', { token: mfaToken }), 401, 'UNAUTHENTICATED');
    });

    it('answers INVALID_CREDENTIALS for an MFA token issued before a password reset', async () => {
      const actor = await member();
      const { secret } = await enrolMfa(env, actor.token);
      const before = assertMfaChallenge(await login(actor));
      const forgot = await env.call('POST', '/v1/auth/forgot-password', {
        body: { email: actor.user.email },
        ip: freshIp(),
      });
      assert.equal(forgot.statusCode, 204, forgot.body);
      const reset = await env.call('POST', '/v1/auth/reset-password', {
        body: {
          password: 'a brand new password',
          token: await tokenFromLatestMail(env, actor.user.email, 'FORGOT_PASSWORD_RESET'),
        },
        ip: freshIp(),
      });
      // Proving the password by reset still needs the second factor.
      const after = assertMfaChallenge(reset);
      const code = nextTotp(secret);
      assertError(await finish(before, code), 401, 'INVALID_CREDENTIALS');
      assertSession(await finish(after, code), actor.user.id);
    });

    it('answers INVALID_CREDENTIALS when the user was deactivated after the password step', async () => {
      const admin = await env.createUser(organizationId, 'ORG_ADMIN');
      const actor = await member();
      const { secret } = await enrolMfa(env, actor.token);
      const mfaToken = assertMfaChallenge(await login(actor));
      const edited = await env.call('PATCH', `/v1/users/${actor.user.id}`, {
        token: admin.token,
        body: { active: false },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assertError(await finish(mfaToken, nextTotp(secret)), 401, 'INVALID_CREDENTIALS');
    });
  });

  describe('organizations that require MFA', () => {
    let strictOrganizationId: string;
    before(async () => {
      strictOrganizationId = (await env.createOrganization(undefined, { mfa_required: true })).id;
    });

    it('answers MFA_REQUIRED outside /v1/me* to a user without MFA', async () => {
      const actor = await env.createUser(strictOrganizationId, 'ORG_ADMIN');
      assertError(await env.call('GET', '/v1/users', { token: actor.token }), 403, 'MFA_REQUIRED');
      assertError(await env.call('GET', '/v1/roles', { token: actor.token }), 403, 'MFA_REQUIRED');
      const createKey = await env.call('POST', '/v1/api-keys', { token: actor.token, body: { name: 'k' } });
      assertError(createKey, 403, 'MFA_REQUIRED');
    });

    it('lets a user without MFA read /v1/me and enrol, after which everything is open', async () => {
      const actor = await env.createUser(strictOrganizationId, 'ORG_ADMIN');
      const me = await env.call('GET', '/v1/me', { token: actor.token });
      assert.equal(me.statusCode, 200, me.body);
      assert.equal(me.json().organization.mfa_required, true);
      const { token } = await enrolMfa(env, actor.token);
      const users = await env.call('GET', '/v1/users', { token });
      assert.equal(users.statusCode, 200, users.body);
    });

    it('answers MFA_REQUIRED to the API keys of a user without MFA', async () => {
      const other = await env.createOrganization();
      const actor = await env.createUser(other.id, 'ORG_ADMIN');
      const created = await env.call('POST', '/v1/api-keys', { token: actor.token, body: { name: 'k' } });
      assert.equal(created.statusCode, 201, created.body);
      const key = created.json().key as string;
      assert.equal((await env.call('GET', '/v1/users', { apiKey: key })).statusCode, 200);
      const required = await env.call('PATCH', `/v1/organizations/${other.id}`, {
        token: env.platformAdmin.token,
        body: { mfa_required: true },
      });
      assert.equal(required.statusCode, 200, required.body);
      assertError(await env.call('GET', '/v1/users', { apiKey: key }), 403, 'MFA_REQUIRED');
      assert.equal((await env.call('GET', '/v1/me', { apiKey: key })).statusCode, 200);
    });
  });
});
