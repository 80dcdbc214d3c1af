import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { ROLE_IDS } from '../../../../access/permissions.ts';

const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';

function uniqueEmail(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}@example.test`;
}

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

  describe('list and get', () => {
    it('shows an org admin only the users of its own organization', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const stranger = await env.createUser(other.id, 'ORG_MEMBER');

      const response = await env.call('GET', '/v1/users', { token: admin.token });
      assert.equal(response.statusCode, 200);
      const page = response.json();
      assert.deepEqual(
        page.results.map((u: { id: string }) => u.id).sort(),
        [admin.user.id, member.user.id].sort(),
      );
      assert.equal(page.total_results, 2);
      assert.equal(page.has_more, false);
      assert.equal(page.cursor, null);
      assert.ok(!page.results.some((u: { id: string }) => u.id === stranger.user.id));
    });

    it('gives an org admin an empty list, not another organization users, when filtering by another organization', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      await env.createUser(other.id, 'ORG_MEMBER');
      const response = await env.call('GET', '/v1/users', {
        token: admin.token,
        query: { organization_id: other.id },
      });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json().results, []);
      assert.equal(response.json().total_results, 0);
    });

    it('lets a member read the users of its organization', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const colleague = await env.createUser(org.id, 'ORG_ADMIN');
      const list = await env.call('GET', '/v1/users', { token: member.token });
      assert.equal(list.statusCode, 200);
      assert.equal(list.json().total_results, 2);
      const one = await env.call('GET', `/v1/users/${colleague.user.id}`, { token: member.token });
      assert.equal(one.statusCode, 200);
      assert.equal(one.json().email, colleague.user.email);
    });

    it('shows a platform admin every user, or one organization with organization_id', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const a = await env.createUser(org.id, 'ORG_ADMIN');
      const b = await env.createUser(org.id, 'ORG_MEMBER');
      const c = await env.createUser(other.id, 'ORG_MEMBER');

      const all = await env.call('GET', '/v1/users', { token: env.platformAdmin.token });
      assert.equal(all.statusCode, 200);
      const count = await env.database.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(all.json().total_results, Number(count.n));
      const ids = all.json().results.map((u: { id: string }) => u.id);
      for (const id of [a.user.id, b.user.id, c.user.id, env.platformAdmin.user.id])
        assert.ok(ids.includes(id));

      const filtered = await env.call('GET', '/v1/users', {
        token: env.platformAdmin.token,
        query: { organization_id: org.id },
      });
      assert.equal(filtered.statusCode, 200);
      assert.deepEqual(
        filtered
          .json()
          .results.map((u: { id: string }) => u.id)
          .sort(),
        [a.user.id, b.user.id].sort(),
      );
      assert.equal(filtered.json().total_results, 2);
    });

    it('pages through users with a cursor that is bound to its filter', async () => {
      const org = await env.createOrganization();
      const created = [];
      for (let i = 0; i < 5; i++) created.push(await env.createUser(org.id, 'ORG_MEMBER'));
      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const query: Record<string, string> = { organization_id: org.id, limit: '2' };
        if (cursor) query.cursor = cursor;
        const response = await env.call('GET', '/v1/users', { token: env.platformAdmin.token, query });
        assert.equal(response.statusCode, 200, response.body);
        const page = response.json();
        assert.ok(page.results.length <= 2);
        assert.equal(page.total_results, 5);
        seen.push(...page.results.map((u: { id: string }) => u.id));
        if (!page.has_more) {
          assert.equal(page.cursor, null);
          break;
        }
        cursor = page.cursor;
      }
      const ordered = await env.database.db
        .selectFrom('users')
        .select('id')
        .where('organization_id', '=', org.id)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        seen,
        ordered.map((u) => u.id),
      );
      assert.deepEqual(seen.slice().sort(), created.map((u) => u.user.id).sort());

      const first = await env.call('GET', '/v1/users', {
        token: env.platformAdmin.token,
        query: { organization_id: org.id, limit: '2' },
      });
      const reused = await env.call('GET', '/v1/users', {
        token: env.platformAdmin.token,
        query: { limit: '2', cursor: first.json().cursor },
      });
      assertError(reused, 400, 'INVALID_CURSOR');
    });

    it('rejects out-of-range limits and unknown query parameters with 400', async () => {
      const queries: Record<string, string>[] = [
        { limit: '0' },
        { limit: '101' },
        { order_direction: 'SIDEWAYS' },
        { sort: 'email' },
      ];
      for (const query of queries) {
        const response = await env.call('GET', '/v1/users', { token: env.platformAdmin.token, query });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });

    it('gets a user of the own organization, with last_seen set once it has called the API', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      assert.equal((await env.call('GET', '/v1/me', { token: member.token })).statusCode, 200);
      const response = await env.call('GET', `/v1/users/${member.user.id}`, { token: admin.token });
      assert.equal(response.statusCode, 200);
      const user = response.json();
      assert.equal(user.id, member.user.id);
      assert.equal(user.email, member.user.email);
      assert.equal(user.organization_id, org.id);
      assert.equal(user.role_id, ROLE_IDS.ORG_MEMBER);
      assert.equal(user.active, true);
      assert.notEqual(user.last_seen, null);
      assert.equal('password_hash' in user, false);
      assert.equal('session_version' in user, false);
    });

    it('answers 404, never 403, for a user of another organization or an unknown id', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const stranger = await env.createUser(other.id, 'ORG_ADMIN');
      for (const id of [stranger.user.id, UNKNOWN_ID]) {
        const response = await env.call('GET', `/v1/users/${id}`, { token: admin.token });
        assertError(response, 404, 'NOT_FOUND');
      }
      const platform = await env.call('GET', `/v1/users/${stranger.user.id}`, {
        token: env.platformAdmin.token,
      });
      assert.equal(platform.statusCode, 200);
    });

    it('answers 400 for a user id that is not a UUID', async () => {
      const response = await env.call('GET', '/v1/users/not-a-uuid', { token: env.platformAdmin.token });
      assertError(response, 400, 'VALIDATION_FAILED');
    });
  });

  describe('edit', () => {
    it('changes the role of a user of the own organization, effective on its next request', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const body = { email: uniqueEmail('promoted-invites'), role_id: ROLE_IDS.ORG_MEMBER };
      assert.equal((await env.call('POST', '/v1/users', { token: member.token, body })).statusCode, 403);

      const response = await env.call('PATCH', `/v1/users/${member.user.id}`, {
        token: admin.token,
        body: { role_id: ROLE_IDS.ORG_ADMIN },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().role_id, ROLE_IDS.ORG_ADMIN);
      assert.equal((await env.call('POST', '/v1/users', { token: member.token, body })).statusCode, 201);
    });

    it('deactivation revokes the user access tokens and API keys; reactivation allows a new log in', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const key = await env.call('POST', '/v1/api-keys', { token: member.token, body: { name: 'ci' } });
      assert.equal(key.statusCode, 201);
      const apiKey = key.json().key as string;
      assert.equal((await env.call('GET', '/v1/me', { apiKey })).statusCode, 200);

      const deactivated = await env.call('PATCH', `/v1/users/${member.user.id}`, {
        token: admin.token,
        body: { active: false },
      });
      assert.equal(deactivated.statusCode, 200, deactivated.body);
      assert.equal(deactivated.json().active, false);

      const withToken = await env.call('GET', '/v1/me', { token: member.token });
      assertError(withToken, 401, 'UNAUTHENTICATED');
      const withKey = await env.call('GET', '/v1/me', { apiKey });
      assert.equal(withKey.statusCode, 401);
      const login = await env.call('POST', '/v1/auth/login', {
        body: { email: member.user.email, password: member.password },
        ip: '10.77.0.1',
      });
      assertError(login, 401, 'INVALID_CREDENTIALS');

      const reactivated = await env.call('PATCH', `/v1/users/${member.user.id}`, {
        token: admin.token,
        body: { active: true },
      });
      assert.equal(reactivated.statusCode, 200);
      assert.equal(reactivated.json().active, true);
      assert.equal((await env.call('GET', '/v1/me', { token: member.token })).statusCode, 401);
      const fresh = await env.login(member.user.email, member.password);
      assert.equal((await env.call('GET', '/v1/me', { token: fresh })).statusCode, 200);
    });

    it("lets only a platform admin undo a platform admin's deactivation; an org admin undoes its own", async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const patch = (token: string, body: Record<string, unknown>) =>
        env.call('PATCH', `/v1/users/${member.user.id}`, { token, body });
      const activeNow = async () =>
        (
          await env.database.db
            .selectFrom('users')
            .select('active')
            .where('id', '=', member.user.id)
            .executeTakeFirstOrThrow()
        ).active;

      assert.equal((await patch(env.platformAdmin.token, { active: false })).statusCode, 200);
      assertError(await patch(admin.token, { active: true }), 403, 'FORBIDDEN');
      assert.equal(await activeNow(), false);
      // Deactivating again, or editing the role, does not clear the platform admin's decision.
      assert.equal((await patch(admin.token, { active: false })).statusCode, 200);
      assert.equal((await patch(admin.token, { role_id: ROLE_IDS.ORG_MEMBER })).statusCode, 200);
      assertError(await patch(admin.token, { active: true }), 403, 'FORBIDDEN');
      assert.equal(await activeNow(), false);

      const undone = await patch(env.platformAdmin.token, { active: true });
      assert.equal(undone.statusCode, 200, undone.body);
      assert.equal(await activeNow(), true);

      // The org admin's own deactivation stays the org admin's to undo (or the platform's).
      assert.equal((await patch(admin.token, { active: false })).statusCode, 200);
      const own = await patch(admin.token, { active: true });
      assert.equal(own.statusCode, 200, own.body);
      assert.equal(await activeNow(), true);

      // A platform admin deactivating an already deactivated user takes the decision over.
      assert.equal((await patch(admin.token, { active: false })).statusCode, 200);
      assert.equal((await patch(env.platformAdmin.token, { active: false })).statusCode, 200);
      assertError(await patch(admin.token, { active: true }), 403, 'FORBIDDEN');
      assert.equal(await activeNow(), false);
    });

    it('does not let users deactivate themselves or change their own role (409 INVALID_STATE)', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      for (const body of [{ active: false }, { role_id: ROLE_IDS.ORG_MEMBER }]) {
        const response = await env.call('PATCH', `/v1/users/${admin.user.id}`, { token: admin.token, body });
        assertError(response, 409, 'INVALID_STATE');
      }
      const self = await env.call('PATCH', `/v1/users/${env.platformAdmin.user.id}`, {
        token: env.platformAdmin.token,
        body: { active: false },
      });
      assert.equal(self.statusCode, 409);
      assert.equal((await env.call('GET', '/v1/me', { token: admin.token })).statusCode, 200);
      const row = await env.database.db
        .selectFrom('users')
        .select(['active', 'role_id'])
        .where('id', '=', admin.user.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { active: true, role_id: ROLE_IDS.ORG_ADMIN });
    });

    it('accepts a no-op edit of the own record (active true, same role)', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const response = await env.call('PATCH', `/v1/users/${admin.user.id}`, {
        token: admin.token,
        body: { active: true, role_id: ROLE_IDS.ORG_ADMIN },
      });
      assert.equal(response.statusCode, 200);
      assert.equal((await env.call('GET', '/v1/me', { token: admin.token })).statusCode, 200);
    });

    it('does not let an org admin edit a platform admin, nor grant PLATFORM_ADMIN', async () => {
      const platformOrgAdmin = await env.createUser(env.platformOrganizationId, 'ORG_ADMIN');
      for (const body of [{ active: false }, { role_id: ROLE_IDS.ORG_MEMBER }]) {
        const response = await env.call('PATCH', `/v1/users/${env.platformAdmin.user.id}`, {
          token: platformOrgAdmin.token,
          body,
        });
        assertError(response, 403, 'FORBIDDEN');
      }
      assert.equal((await env.call('GET', '/v1/me', { token: env.platformAdmin.token })).statusCode, 200);

      const colleague = await env.createUser(env.platformOrganizationId, 'ORG_MEMBER');
      const escalate = await env.call('PATCH', `/v1/users/${colleague.user.id}`, {
        token: platformOrgAdmin.token,
        body: { role_id: ROLE_IDS.PLATFORM_ADMIN },
      });
      assert.equal(escalate.statusCode, 403);
      const row = await env.database.db
        .selectFrom('users')
        .select('role_id')
        .where('id', '=', colleague.user.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.role_id, ROLE_IDS.ORG_MEMBER);
    });

    it('lets a platform admin edit users of any organization and grant PLATFORM_ADMIN', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const response = await env.call('PATCH', `/v1/users/${member.user.id}`, {
        token: env.platformAdmin.token,
        body: { role_id: ROLE_IDS.PLATFORM_ADMIN },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().role_id, ROLE_IDS.PLATFORM_ADMIN);
      const me = await env.call('GET', '/v1/me', { token: member.token });
      assert.ok(me.json().permissions.includes('platform:admin'));
    });

    it('answers 404 when an org admin edits a user of another organization, and changes nothing', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const stranger = await env.createUser(other.id, 'ORG_MEMBER');
      const response = await env.call('PATCH', `/v1/users/${stranger.user.id}`, {
        token: admin.token,
        body: { active: false },
      });
      assertError(response, 404, 'NOT_FOUND');
      assert.equal((await env.call('GET', '/v1/me', { token: stranger.token })).statusCode, 200);
    });

    it('forbids members to edit users (403)', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const colleague = await env.createUser(org.id, 'ORG_MEMBER');
      const response = await env.call('PATCH', `/v1/users/${colleague.user.id}`, {
        token: member.token,
        body: { active: false },
      });
      assertError(response, 403, 'FORBIDDEN');
    });

    it('rejects an empty body, unknown fields, an unknown role and non-boolean active with 400', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      for (const body of [{}, { email: 'x@example.test' }, { role_id: UNKNOWN_ID }, { active: 'false' }]) {
        const response = await env.call('PATCH', `/v1/users/${member.user.id}`, {
          token: env.platformAdmin.token,
          body,
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });

    it('answers 404 for an unknown user id', async () => {
      const response = await env.call('PATCH', `/v1/users/${UNKNOWN_ID}`, {
        token: env.platformAdmin.token,
        body: { active: true },
      });
      assertError(response, 404, 'NOT_FOUND');
    });
  });
});
