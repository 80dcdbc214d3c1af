import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import {
  assertSession,
  freshIp,
  inviteUser,
  linkInMail,
  mailsTo,
  tokenFromLatestMail,
} from '../../../../../test/support/auth.ts';

const NEW_PASSWORD = 'a brand new password';

describe('passwords', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  before(async () => {
    env = await setupTest();
    organizationId = (await env.createOrganization()).id;
    admin = await env.createUser(organizationId, 'ORG_ADMIN');
  });
  after(() => env.close());

  const post = (path: string, body: unknown, token?: string) =>
    env.call('POST', path, { body, ip: freshIp(), ...(token && { token }) });
  const login = (email: string, password: string) => post('/v1/auth/login', { email, password });
  const expireTokensOf = (userId: string) =>
    env.database.db
      .updateTable('user_tokens')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('user_id', '=', userId)
      .execute();

  describe('verify user: POST /v1/auth/verify', () => {
    it('mails the invited user a /verify link carrying token and email', async () => {
      const invitee = await inviteUser(env, admin.token);
      const [mail] = await mailsTo(env, invitee.email, 'USER_INVITE');
      assert.ok(mail);
      const link = linkInMail(mail.text, '/verify');
      assert.equal(link.origin, 'http://tokens.test');
      assert.equal(link.searchParams.get('email'), invitee.email);
      assert.equal(link.searchParams.get('token'), invitee.token);
    });

    it('sets the password of an invited user and answers 200 with a session', async () => {
      const invitee = await inviteUser(env, admin.token);
      const verified = await post('/v1/auth/verify', {
        email: invitee.email,
        password: NEW_PASSWORD,
        token: invitee.token,
      });
      const session = assertSession(verified, invitee.id);
      assert.equal(session.user.email, invitee.email);
      assert.equal(session.user.organization_id, organizationId);
      const me = await env.call('GET', '/v1/me', { token: session.access_token });
      assert.equal(me.statusCode, 200, me.body);
      assertSession(await login(invitee.email, NEW_PASSWORD), invitee.id);
    });

    it('accepts a verify token once', async () => {
      const invitee = await inviteUser(env, admin.token);
      const body = { email: invitee.email, password: NEW_PASSWORD, token: invitee.token };
      assertSession(await post('/v1/auth/verify', body));
      const again = await post('/v1/auth/verify', { ...body, password: 'an attacker password' });
      assertError(again, 401, 'INVALID_CREDENTIALS');
      assertError(await login(invitee.email, 'an attacker password'), 401, 'INVALID_CREDENTIALS');
    });

    it("answers INVALID_CREDENTIALS for a token sent with another user's email", async () => {
      const invitee = await inviteUser(env, admin.token);
      const other = await inviteUser(env, admin.token);
      const wrongEmail = await post('/v1/auth/verify', {
        email: other.email,
        password: NEW_PASSWORD,
        token: invitee.token,
      });
      assertError(wrongEmail, 401, 'INVALID_CREDENTIALS');
      const unknownEmail = await post('/v1/auth/verify', {
        email: 'nobody-here@example.test',
        password: NEW_PASSWORD,
        token: invitee.token,
      });
      assertError(unknownEmail, 401, 'INVALID_CREDENTIALS');
      assertError(await login(other.email, NEW_PASSWORD), 401, 'INVALID_CREDENTIALS');
    });

    it('answers INVALID_CREDENTIALS for an unknown or expired token', async () => {
      const invitee = await inviteUser(env, admin.token);
      const body = { email: invitee.email, password: NEW_PASSWORD };
      assertError(await post('/v1/auth/verify', { ...body, token: 'garbage' }), 401, 'INVALID_CREDENTIALS');
      await expireTokensOf(invitee.id);
      assertError(
        await post('/v1/auth/verify', { ...body, token: invitee.token }),
        401,
        'INVALID_CREDENTIALS',
      );
    });

    it('answers INVALID_CREDENTIALS to an invited user who was deactivated', async () => {
      const invitee = await inviteUser(env, admin.token);
      const edited = await env.call('PATCH', `/v1/users/${invitee.id}`, {
        token: admin.token,
        body: { active: false },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      const verified = await post('/v1/auth/verify', {
        email: invitee.email,
        password: NEW_PASSWORD,
        token: invitee.token,
      });
      assertError(verified, 401, 'INVALID_CREDENTIALS');
    });

    it('rejects a password shorter than 8 characters with VALIDATION_FAILED', async () => {
      const invitee = await inviteUser(env, admin.token);
      const verified = await post('/v1/auth/verify', {
        email: invitee.email,
        password: 'short',
        token: invitee.token,
      });
      const error = assertError(verified, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/password'],
      );
      // The token was not used up by the rejected request.
      assertSession(
        await post('/v1/auth/verify', { email: invitee.email, password: NEW_PASSWORD, token: invitee.token }),
      );
    });
  });

  describe('forgot password: POST /v1/auth/forgot-password', () => {
    it('answers 204 and queues a FORGOT_PASSWORD_RESET mail with a /reset-password link', async () => {
      const actor = await env.createUser(organizationId, 'ORG_MEMBER');
      const response = await post('/v1/auth/forgot-password', { email: actor.user.email });
      assert.equal(response.statusCode, 204, response.body);
      assert.equal(response.body, '');
      const mails = await mailsTo(env, actor.user.email, 'FORGOT_PASSWORD_RESET');
      assert.equal(mails.length, 1);
      const link = linkInMail(mails[0]!.text, '/reset-password');
      assert.equal(link.origin, 'http://tokens.test');
      assert.ok(link.searchParams.get('token'));
    });

    it('answers the same 204 for an unknown email and queues no mail', async () => {
      const email = 'nobody-at-all@example.test';
      const response = await post('/v1/auth/forgot-password', { email });
      assert.equal(response.statusCode, 204, response.body);
      assert.equal(response.body, '');
      assert.equal((await mailsTo(env, email, 'FORGOT_PASSWORD_RESET')).length, 0);
    });

    it('queues no mail for an invited user who has no password yet', async () => {
      const invitee = await inviteUser(env, admin.token);
      const response = await post('/v1/auth/forgot-password', { email: invitee.email });
      assert.equal(response.statusCode, 204, response.body);
      assert.equal((await mailsTo(env, invitee.email, 'FORGOT_PASSWORD_RESET')).length, 0);
    });

    it('queues no mail for an inactive user', async () => {
      const actor = await env.createUser(organizationId, 'ORG_MEMBER');
      const edited = await env.call('PATCH', `/v1/users/${actor.user.id}`, {
        token: admin.token,
        body: { active: false },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      const response = await post('/v1/auth/forgot-password', { email: actor.user.email });
      assert.equal(response.statusCode, 204, response.body);
      assert.equal((await mailsTo(env, actor.user.email, 'FORGOT_PASSWORD_RESET')).length, 0);
    });

    it('matches the email case-insensitively', async () => {
      const actor = await env.createUser(organizationId, 'ORG_MEMBER');
      const response = await post('/v1/auth/forgot-password', { email: actor.user.email.toUpperCase() });
      assert.equal(response.statusCode, 204, response.body);
      assert.equal((await mailsTo(env, actor.user.email, 'FORGOT_PASSWORD_RESET')).length, 1);
    });
  });

  describe('reset password: POST /v1/auth/reset-password', () => {
    const requestReset = async (email: string) => {
      const response = await post('/v1/auth/forgot-password', { email });
      assert.equal(response.statusCode, 204, response.body);
      return tokenFromLatestMail(env, email, 'FORGOT_PASSWORD_RESET');
    };

    it('sets the new password with the emailed token and answers 200 with a session', async () => {
      const actor = await env.createUser(organizationId, 'ORG_MEMBER');
      const token = await requestReset(actor.user.email);
      const session = assertSession(
        await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token }),
        actor.user.id,
      );
      assert.equal((await env.call('GET', '/v1/me', { token: session.access_token })).statusCode, 200);
      assertError(await login(actor.user.email, actor.password), 401, 'INVALID_CREDENTIALS');
      assertSession(await login(actor.user.email, NEW_PASSWORD), actor.user.id);
    });

    it('revokes the access tokens issued before the reset', async () => {
      const actor = await env.createUser(organizationId, 'ORG_MEMBER');
      const token = await requestReset(actor.user.email);
      assertSession(await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token }));
      assertError(await env.call('GET', '/v1/me', { token: actor.token }), 401, 'UNAUTHENTICATED');
    });

    it('accepts a reset token once', async () => {
      const actor = await env.createUser(organizationId, 'ORG_MEMBER');
      const token = await requestReset(actor.user.email);
      assertSession(await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token }));
      const again = await post('/v1/auth/reset-password', { password: 'an attacker password', token });
      assertError(again, 401, 'INVALID_CREDENTIALS');
      assertSession(await login(actor.user.email, NEW_PASSWORD));
    });

    it('voids an older reset token when a newer one is mailed', async () => {
      const actor = await env.createUser(organizationId, 'ORG_MEMBER');
      const older = await requestReset(actor.user.email);
      const newer = await requestReset(actor.user.email);
      assert.notEqual(older, newer);
      assertError(
        await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token: older }),
        401,
        'INVALID_CREDENTIALS',
      );
      assertSession(await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token: newer }));
    });

    it('answers INVALID_CREDENTIALS for an unknown or expired token', async () => {
      assertError(
        await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token: 'garbage' }),
        401,
        'INVALID_CREDENTIALS',
      );
      const actor = await env.createUser(organizationId, 'ORG_MEMBER');
      const token = await requestReset(actor.user.email);
      await expireTokensOf(actor.user.id);
      assertError(
        await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token }),
        401,
        'INVALID_CREDENTIALS',
      );
    });

    it('does not accept a verify token as a reset token', async () => {
      const invitee = await inviteUser(env, admin.token);
      const reset = await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token: invitee.token });
      assertError(reset, 401, 'INVALID_CREDENTIALS');
    });

    it('answers INVALID_CREDENTIALS when the user was deactivated after the mail', async () => {
      const actor = await env.createUser(organizationId, 'ORG_MEMBER');
      const token = await requestReset(actor.user.email);
      const edited = await env.call('PATCH', `/v1/users/${actor.user.id}`, {
        token: admin.token,
        body: { active: false },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assertError(
        await post('/v1/auth/reset-password', { password: NEW_PASSWORD, token }),
        401,
        'INVALID_CREDENTIALS',
      );
    });
  });

  describe('change password: POST /v1/auth/change-password', () => {
    it('answers VALIDATION_FAILED on /old_password for a wrong old password, and changes nothing', async () => {
      const actor = await env.createUser(organizationId, 'ORG_MEMBER');
      const response = await post(
        '/v1/auth/change-password',
        { old_password: 'not the password', new_password: NEW_PASSWORD },
        actor.token,
      );
      const error = assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/old_password'],
      );
      assert.equal((await env.call('GET', '/v1/me', { token: actor.token })).statusCode, 200);
      assertError(await login(actor.user.email, NEW_PASSWORD), 401, 'INVALID_CREDENTIALS');
    });

    it('answers a new working token, revokes the old one and switches the password', async () => {
      const actor = await env.createUser(organizationId, 'ORG_MEMBER');
      const response = await post(
        '/v1/auth/change-password',
        { old_password: actor.password, new_password: NEW_PASSWORD },
        actor.token,
      );
      const session = assertSession(response, actor.user.id);
      assert.equal((await env.call('GET', '/v1/me', { token: session.access_token })).statusCode, 200);
      assertError(await env.call('GET', '/v1/me', { token: actor.token }), 401, 'UNAUTHENTICATED');
      assertError(await login(actor.user.email, actor.password), 401, 'INVALID_CREDENTIALS');
      assertSession(await login(actor.user.email, NEW_PASSWORD), actor.user.id);
    });

    it('rejects a new password shorter than 8 characters with VALIDATION_FAILED', async () => {
      const response = await post(
        '/v1/auth/change-password',
        { old_password: admin.password, new_password: 'short' },
        admin.token,
      );
      const error = assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/new_password'],
      );
    });

    it('answers UNAUTHENTICATED without credentials', async () => {
      const response = await post('/v1/auth/change-password', {
        old_password: 'whatever',
        new_password: NEW_PASSWORD,
      });
      assertError(response, 401, 'UNAUTHENTICATED');
    });
  });
});
