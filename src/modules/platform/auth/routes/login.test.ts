import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { assertSession, freshIp, inviteUser } from '../../../../../test/support/auth.ts';
import { createKeyring } from '../../../../lib/secrets.ts';
import { signToken } from '../tokens.ts';

describe('log in and credentials', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  before(async () => {
    env = await setupTest();
    organizationId = (await env.createOrganization()).id;
    admin = await env.createUser(organizationId, 'ORG_ADMIN');
  });
  after(() => env.close());

  const login = (email: string, password: string) =>
    env.call('POST', '/v1/auth/login', { body: { email, password }, ip: freshIp() });

  describe('POST /v1/auth/login', () => {
    it('answers 200 {access_token, user} for the right password, and the token works', async () => {
      const member = await env.createUser(organizationId, 'ORG_MEMBER');
      const session = assertSession(await login(member.user.email, member.password), member.user.id);
      assert.equal(session.user.email, member.user.email);
      assert.equal(session.user.organization_id, organizationId);
      assert.equal(session.user.mfa_enabled, false);
      const me = await env.call('GET', '/v1/me', { token: session.access_token });
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().user.id, member.user.id);
    });

    it('matches the email case-insensitively', async () => {
      const member = await env.createUser(organizationId, 'ORG_MEMBER');
      assertSession(await login(member.user.email.toUpperCase(), member.password), member.user.id);
    });

    it('answers INVALID_CREDENTIALS for a wrong password', async () => {
      const member = await env.createUser(organizationId, 'ORG_MEMBER');
      assertError(await login(member.user.email, `${member.password}!`), 401, 'INVALID_CREDENTIALS');
    });

    it('answers INVALID_CREDENTIALS for an unknown email, like a wrong password', async () => {
      const unknown = await login('nobody-here@example.test', 'whatever-password');
      const error = assertError(unknown, 401, 'INVALID_CREDENTIALS');
      const member = await env.createUser(organizationId, 'ORG_MEMBER');
      const wrong = assertError(
        await login(member.user.email, 'whatever-password'),
        401,
        'INVALID_CREDENTIALS',
      );
      assert.equal(error.detail, wrong.detail, 'the answer does not reveal whether the email exists');
    });

    it('answers INVALID_CREDENTIALS for an inactive user, even with the right password', async () => {
      const member = await env.createUser(organizationId, 'ORG_MEMBER');
      const edited = await env.call('PATCH', `/v1/users/${member.user.id}`, {
        token: admin.token,
        body: { active: false },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assertError(await login(member.user.email, member.password), 401, 'INVALID_CREDENTIALS');
    });

    it('answers INVALID_CREDENTIALS for an invited user who has no password yet', async () => {
      const invitee = await inviteUser(env, admin.token);
      assertError(await login(invitee.email, 'any-password-at-all'), 401, 'INVALID_CREDENTIALS');
    });

    it('answers FORBIDDEN for the right password when the organization is disabled', async () => {
      const other = await env.createOrganization();
      const member = await env.createUser(other.id, 'ORG_MEMBER');
      const disabled = await env.call('PATCH', `/v1/organizations/${other.id}`, {
        token: env.platformAdmin.token,
        body: { is_enabled: false },
      });
      assert.equal(disabled.statusCode, 200, disabled.body);
      assertError(await login(member.user.email, member.password), 403, 'FORBIDDEN');
      // A wrong password still answers INVALID_CREDENTIALS: the organization is not revealed.
      assertError(await login(member.user.email, 'not-the-password'), 401, 'INVALID_CREDENTIALS');
    });

    it('rejects a body with an unknown field with VALIDATION_FAILED', async () => {
      const response = await env.call('POST', '/v1/auth/login', {
        body: { email: admin.user.email, password: admin.password, remember: true },
        ip: freshIp(),
      });
      const error = assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/remember'],
      );
    });

    it('rejects a body without a password with VALIDATION_FAILED', async () => {
      const response = await env.call('POST', '/v1/auth/login', {
        body: { email: admin.user.email },
        ip: freshIp(),
      });
      const error = assertError(response, 400, 'VALIDATION_FAILED');
      assert.ok(error.fields?.some((f) => f.path === '/password'));
    });
  });

  describe('access tokens and API keys', () => {
    it('answers UNAUTHENTICATED without credentials', async () => {
      assertError(await env.call('GET', '/v1/me'), 401, 'UNAUTHENTICATED');
    });

    it('answers UNAUTHENTICATED for a garbage bearer token', async () => {
      assertError(await env.call('GET', '/v1/me', { token: 'not-a-token' }), 401, 'UNAUTHENTICATED');
      assertError(await env.call('GET', '/v1/me', { token: 'a.b.c' }), 401, 'UNAUTHENTICATED');
    });

    it('answers UNAUTHENTICATED for an Authorization header that is not "Bearer <token>"', async () => {
      const response = await env.call('GET', '/v1/me', {
        headers: { authorization: `Basic ${admin.token}` },
      });
      assertError(response, 401, 'UNAUTHENTICATED');
    });

    const currentClaims = async (userId: string) => {
      const row = await env.database.db
        .selectFrom('users')
        .select(['id', 'session_version'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      return { userId: row.id, sessionVersion: row.session_version };
    };

    it('answers UNAUTHENTICATED for an expired access token', async () => {
      const claims = await currentClaims(admin.user.id);
      // The same claims, unexpired, are accepted: only the expiry differs.
      const fresh = await signToken(env.ctx.keyring, 'access', claims, 60);
      assert.equal((await env.call('GET', '/v1/me', { token: fresh })).statusCode, 200);
      const expired = await signToken(env.ctx.keyring, 'access', claims, -60);
      assertError(await env.call('GET', '/v1/me', { token: expired }), 401, 'UNAUTHENTICATED');
    });

    it('answers UNAUTHENTICATED for a token signed with another key', async () => {
      const forged = await signToken(
        createKeyring('another-secret-key-another-secret-key-000'),
        'access',
        await currentClaims(admin.user.id),
        3600,
      );
      assertError(await env.call('GET', '/v1/me', { token: forged }), 401, 'UNAUTHENTICATED');
    });

    it('answers UNAUTHENTICATED for an MFA token used as an access token', async () => {
      const mfaToken = await signToken(env.ctx.keyring, 'mfa', await currentClaims(admin.user.id), 300);
      assertError(await env.call('GET', '/v1/me', { token: mfaToken }), 401, 'UNAUTHENTICATED');
    });

    it('answers UNAUTHENTICATED for the tokens and API keys of a deactivated user', async () => {
      const member = await env.createUser(organizationId, 'ORG_MEMBER');
      const created = await env.call('POST', '/v1/api-keys', { token: member.token, body: { name: 'ci' } });
      assert.equal(created.statusCode, 201, created.body);
      const key = created.json().key as string;
      assert.equal((await env.call('GET', '/v1/me', { token: member.token })).statusCode, 200);
      assert.equal((await env.call('GET', '/v1/me', { apiKey: key })).statusCode, 200);

      const edited = await env.call('PATCH', `/v1/users/${member.user.id}`, {
        token: admin.token,
        body: { active: false },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assertError(await env.call('GET', '/v1/me', { token: member.token }), 401, 'UNAUTHENTICATED');
      assertError(await env.call('GET', '/v1/me', { apiKey: key }), 401, 'UNAUTHENTICATED');
    });

    it('keeps old tokens revoked when a deactivated user is reactivated', async () => {
      const member = await env.createUser(organizationId, 'ORG_MEMBER');
      for (const active of [false, true]) {
        const edited = await env.call('PATCH', `/v1/users/${member.user.id}`, {
          token: admin.token,
          body: { active },
        });
        assert.equal(edited.statusCode, 200, edited.body);
      }
      assertError(await env.call('GET', '/v1/me', { token: member.token }), 401, 'UNAUTHENTICATED');
      assertSession(await login(member.user.email, member.password), member.user.id);
    });

    it('answers UNAUTHENTICATED for the tokens of a disabled organization', async () => {
      const other = await env.createOrganization();
      const member = await env.createUser(other.id, 'ORG_MEMBER');
      assert.equal((await env.call('GET', '/v1/me', { token: member.token })).statusCode, 200);
      const disabled = await env.call('PATCH', `/v1/organizations/${other.id}`, {
        token: env.platformAdmin.token,
        body: { is_enabled: false },
      });
      assert.equal(disabled.statusCode, 200, disabled.body);
      assertError(await env.call('GET', '/v1/me', { token: member.token }), 401, 'UNAUTHENTICATED');
    });

    it('accepts an API key both as a Bearer token and in X-Api-Key', async () => {
      const member = await env.createUser(organizationId, 'ORG_MEMBER');
      const created = await env.call('POST', '/v1/api-keys', { token: member.token, body: { name: 'k' } });
      assert.equal(created.statusCode, 201, created.body);
      const key = created.json().key as string;
      const viaBearer = await env.call('GET', '/v1/me', { token: key });
      assert.equal(viaBearer.statusCode, 200, viaBearer.body);
      assert.equal(viaBearer.json().user.id, member.user.id);
      const viaHeader = await env.call('GET', '/v1/me', { apiKey: key });
      assert.equal(viaHeader.statusCode, 200, viaHeader.body);
      assert.equal(viaHeader.json().user.id, member.user.id);
    });

    it('answers UNAUTHENTICATED for an unknown, revoked or expired API key', async () => {
      assertError(await env.call('GET', '/v1/me', { apiKey: 'tis_unknown' }), 401, 'UNAUTHENTICATED');
      assertError(await env.call('GET', '/v1/me', { token: 'tis_unknown' }), 401, 'UNAUTHENTICATED');

      const revokedKey = await env.call('POST', '/v1/api-keys', { token: admin.token, body: { name: 'r' } });
      assert.equal(revokedKey.statusCode, 201, revokedKey.body);
      const revoked = await env.call('DELETE', `/v1/api-keys/${revokedKey.json().id}`, {
        token: admin.token,
      });
      assert.equal(revoked.statusCode, 204, revoked.body);
      assertError(await env.call('GET', '/v1/me', { apiKey: revokedKey.json().key }), 401, 'UNAUTHENTICATED');

      const expiringKey = await env.call('POST', '/v1/api-keys', {
        token: admin.token,
        body: { name: 'e', expiration: new Date(Date.now() + 3600_000).toISOString() },
      });
      assert.equal(expiringKey.statusCode, 201, expiringKey.body);
      const key = expiringKey.json().key as string;
      assert.equal((await env.call('GET', '/v1/me', { apiKey: key })).statusCode, 200);
      await env.database.db
        .updateTable('api_keys')
        .set({ expiration: new Date(Date.now() - 1000) })
        .where('id', '=', expiringKey.json().id)
        .execute();
      assertError(await env.call('GET', '/v1/me', { apiKey: key }), 401, 'UNAUTHENTICATED');
    });
  });
});
