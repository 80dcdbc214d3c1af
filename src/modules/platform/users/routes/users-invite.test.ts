import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { ROLE_IDS } from '../../../../access/permissions.ts';
import { UNKNOWN_ID, uniqueEmail } from './users.test-setup.ts';

/** POST /v1/users: inviting a user (reading users: users-list.test.ts, editing: users-edit.test.ts). */
describe('users', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  async function outboxFor(email: string) {
    return env.database.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', email).execute();
  }

  describe('invite', () => {
    it('creates the user in the caller organization and queues a USER_INVITE with a verify link', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const email = uniqueEmail('invitee');
      const response = await env.call('POST', '/v1/users', {
        token: admin.token,
        body: { email, role_id: ROLE_IDS.ORG_MEMBER },
      });
      assert.equal(response.statusCode, 201, response.body);
      const user = response.json();
      assert.equal(user.email, email);
      assert.equal(user.organization_id, org.id);
      assert.equal(user.role_id, ROLE_IDS.ORG_MEMBER);
      assert.equal(user.active, true);
      assert.equal(user.last_seen, null);
      assert.equal(user.mfa_enabled, false);
      assert.match(user.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      const mails = await outboxFor(email);
      assert.equal(mails.length, 1);
      const mail = mails[0]!;
      assert.equal(mail.template_type, 'USER_INVITE');
      assert.equal(mail.organization_id, org.id);
      const link = /(http:\/\/tokens\.test\/verify\?[^\s)]+)/.exec(mail.text);
      assert.ok(link, `no verify link in: ${mail.text}`);
      const url = new URL(link[1]!);
      assert.equal(url.searchParams.get('email'), email);
      const token = url.searchParams.get('token') ?? '';
      assert.ok(token.length >= 32);
      assert.ok(mail.html.includes(token));

      // The token is stored as a digest only, and the invited user has no password yet.
      const tokens = await env.database.db
        .selectFrom('user_tokens')
        .selectAll()
        .where('user_id', '=', user.id)
        .execute();
      assert.equal(tokens.length, 1);
      assert.equal(tokens[0]!.purpose, 'VERIFY');
      assert.deepEqual(tokens[0]!.token_hash, createHash('sha256').update(token).digest());
      assert.ok(tokens[0]!.expires_at.getTime() > Date.now());
      const row = await env.database.db
        .selectFrom('users')
        .select(['password_hash', 'verified_at'])
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { password_hash: null, verified_at: null });
    });

    it('lets the invited user verify with the mailed token, set a password and log in', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const email = uniqueEmail('verify');
      const invited = await env.call('POST', '/v1/users', {
        token: admin.token,
        body: { email, role_id: ROLE_IDS.ORG_MEMBER },
      });
      assert.equal(invited.statusCode, 201);
      const [mail] = await outboxFor(email);
      const link = new URL(/(http:\/\/tokens\.test\/verify\?[^\s)]+)/.exec(mail!.text)![1]!);
      const token = link.searchParams.get('token')!;

      const verified = await env.call('POST', '/v1/auth/verify', {
        body: { email, password: 'a new password 123', token },
      });
      assert.equal(verified.statusCode, 200, verified.body);
      assert.equal(verified.json().user.id, invited.json().id);
      const me = await env.call('GET', '/v1/me', { token: verified.json().access_token });
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().user.email, email);
      assert.ok(await env.login(email, 'a new password 123'));
    });

    it('stores the email in lower case and rejects the same address in another case with 409 ALREADY_EXISTS', async () => {
      const local = `Mixed-${randomBytes(4).toString('hex')}`;
      const created = await env.call('POST', '/v1/users', {
        token: env.platformAdmin.token,
        body: { email: `${local}@Example.TEST`, role_id: ROLE_IDS.ORG_MEMBER },
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().email, `${local}@example.test`.toLowerCase());

      const again = await env.call('POST', '/v1/users', {
        token: env.platformAdmin.token,
        body: { email: `${local.toUpperCase()}@EXAMPLE.TEST`, role_id: ROLE_IDS.ORG_ADMIN },
      });
      assertError(again, 409, 'ALREADY_EXISTS');
      const rows = await env.database.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', `${local}@example.test`.toLowerCase())
        .execute();
      assert.equal(rows.length, 1);
    });

    it('answers 409 ALREADY_EXISTS for an email that already has an account, and queues no mail', async () => {
      const org = await env.createOrganization();
      const existing = await env.createUser(org.id, 'ORG_MEMBER');
      const response = await env.call('POST', '/v1/users', {
        token: env.platformAdmin.token,
        body: { email: existing.user.email, role_id: ROLE_IDS.ORG_MEMBER, organization_id: org.id },
      });
      assertError(response, 409, 'ALREADY_EXISTS');
      assert.equal((await outboxFor(existing.user.email)).length, 0);
    });

    it('invites once when two invitations of one email race: the other answers 409, never 500', async () => {
      const email = uniqueEmail('race');
      const invite = () =>
        env.call('POST', '/v1/users', {
          token: env.platformAdmin.token,
          body: { email, role_id: ROLE_IDS.ORG_MEMBER },
        });
      const statuses = (await Promise.all([invite(), invite(), invite()])).map((r) => r.statusCode).sort();
      assert.deepEqual(statuses, [201, 409, 409]);
      assert.equal((await outboxFor(email)).length, 1);
    });

    it('lets a platform admin invite into any organization with organization_id', async () => {
      const org = await env.createOrganization();
      const email = uniqueEmail('platform-invite');
      const response = await env.call('POST', '/v1/users', {
        token: env.platformAdmin.token,
        body: { email, role_id: ROLE_IDS.ORG_ADMIN, organization_id: org.id },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().organization_id, org.id);
      assert.equal(response.json().role_id, ROLE_IDS.ORG_ADMIN);
      const [mail] = await outboxFor(email);
      assert.equal(mail?.organization_id, org.id);
    });

    it('defaults organization_id to the caller organization for platform admins too', async () => {
      const email = uniqueEmail('platform-default');
      const response = await env.call('POST', '/v1/users', {
        token: env.platformAdmin.token,
        body: { email, role_id: ROLE_IDS.ORG_MEMBER },
      });
      assert.equal(response.statusCode, 201);
      assert.equal(response.json().organization_id, env.platformOrganizationId);
    });

    it('answers 404 when a platform admin invites into an organization that does not exist', async () => {
      const email = uniqueEmail('nowhere');
      const response = await env.call('POST', '/v1/users', {
        token: env.platformAdmin.token,
        body: { email, role_id: ROLE_IDS.ORG_MEMBER, organization_id: UNKNOWN_ID },
      });
      assertError(response, 404, 'NOT_FOUND');
      assert.equal((await outboxFor(email)).length, 0);
    });

    it('forbids an org admin to invite into another organization (403) and creates nothing', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const email = uniqueEmail('cross-org');
      const response = await env.call('POST', '/v1/users', {
        token: admin.token,
        body: { email, role_id: ROLE_IDS.ORG_MEMBER, organization_id: other.id },
      });
      assertError(response, 403, 'FORBIDDEN');
      const rows = await env.database.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', email)
        .execute();
      assert.equal(rows.length, 0);
      assert.equal((await outboxFor(email)).length, 0);
    });

    it('accepts an org admin naming its own organization in organization_id', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const response = await env.call('POST', '/v1/users', {
        token: admin.token,
        body: { email: uniqueEmail('own-org'), role_id: ROLE_IDS.ORG_ADMIN, organization_id: org.id },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().organization_id, org.id);
    });

    it('lets only platform admins grant PLATFORM_ADMIN', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const denied = await env.call('POST', '/v1/users', {
        token: admin.token,
        body: { email: uniqueEmail('escalate'), role_id: ROLE_IDS.PLATFORM_ADMIN },
      });
      assertError(denied, 403, 'FORBIDDEN');

      const granted = await env.call('POST', '/v1/users', {
        token: env.platformAdmin.token,
        body: { email: uniqueEmail('second-platform'), role_id: ROLE_IDS.PLATFORM_ADMIN },
      });
      assert.equal(granted.statusCode, 201, granted.body);
      assert.equal(granted.json().role_id, ROLE_IDS.PLATFORM_ADMIN);
    });

    it('answers 400 VALIDATION_FAILED for a role_id that is not a role', async () => {
      const email = uniqueEmail('bad-role');
      const response = await env.call('POST', '/v1/users', {
        token: env.platformAdmin.token,
        body: { email, role_id: UNKNOWN_ID },
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        response.json().error.fields.map((f: { path: string }) => f.path),
        ['/role_id'],
      );
      assert.equal((await outboxFor(email)).length, 0);
    });

    it('rejects malformed bodies with 400 VALIDATION_FAILED', async () => {
      const cases: unknown[] = [
        { email: 'not-an-email', role_id: ROLE_IDS.ORG_MEMBER },
        { email: uniqueEmail('x'), role_id: 'not-a-uuid' },
        { email: uniqueEmail('x') },
        { role_id: ROLE_IDS.ORG_MEMBER },
        { email: uniqueEmail('x'), role_id: ROLE_IDS.ORG_MEMBER, password: 'secret123' },
        { email: uniqueEmail('x'), role_id: ROLE_IDS.ORG_MEMBER, organization_id: 'nope' },
      ];
      for (const body of cases) {
        const response = await env.call('POST', '/v1/users', { token: env.platformAdmin.token, body });
        assertError(response, 400, 'VALIDATION_FAILED');
        assert.ok(response.json().error.fields.length > 0);
      }
    });

    it('forbids members to invite (403) and requires credentials (401)', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const body = { email: uniqueEmail('member-invite'), role_id: ROLE_IDS.ORG_MEMBER };
      const forbidden = await env.call('POST', '/v1/users', { token: member.token, body });
      assertError(forbidden, 403, 'FORBIDDEN');
      const anonymous = await env.call('POST', '/v1/users', { body });
      assertError(anonymous, 401, 'UNAUTHENTICATED');
    });

    it('replays the first response for the same Idempotency-Key and invites once', async () => {
      const email = uniqueEmail('idempotent');
      const options = {
        token: env.platformAdmin.token,
        headers: { 'idempotency-key': `invite-${randomBytes(4).toString('hex')}` },
        body: { email, role_id: ROLE_IDS.ORG_MEMBER },
      };
      const first = await env.call('POST', '/v1/users', options);
      const second = await env.call('POST', '/v1/users', options);
      assert.equal(first.statusCode, 201);
      assert.equal(second.statusCode, 201);
      assert.deepEqual(second.json(), first.json());
      assert.equal((await outboxFor(email)).length, 1);
    });
  });
});
