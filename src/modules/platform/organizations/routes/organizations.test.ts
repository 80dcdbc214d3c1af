import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';

const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';

function uniqueName(label: string): string {
  return `${label} ${randomBytes(4).toString('hex')}`;
}

describe('organizations', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
    // network_ids must name registered networks; rows inserted directly (no node is called).
    for (const id of [1, 31337]) await env.insertNetwork(id);
  });
  after(() => env.close());

  async function organizationCount(): Promise<number> {
    const row = await env.database.db
      .selectFrom('organizations')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  describe('create', () => {
    it('creates an organization with the documented defaults (201)', async () => {
      const name = uniqueName('Acme');
      const response = await env.call('POST', '/v1/organizations', {
        token: env.platformAdmin.token,
        body: { name },
      });
      assert.equal(response.statusCode, 201, response.body);
      const org = response.json();
      assert.match(org.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.deepEqual(
        { ...org, id: undefined, created_at: undefined },
        {
          id: undefined,
          created_at: undefined,
          name,
          is_enabled: true,
          mfa_required: false,
          network_ids: [],
          card_provider_connect_types: [],
          identity_provider_id: null,
          auto_fund: false,
          domain: null,
          hardware_wallet: false,
          payout_address: null,
          platform_sale_fee: 0,
        },
      );
      assert.match(org.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const stored = await env.database.db
        .selectFrom('organizations')
        .select('name')
        .where('id', '=', org.id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.name, name);
    });

    it('takes every optional field on create', async () => {
      const response = await env.call('POST', '/v1/organizations', {
        token: env.platformAdmin.token,
        body: {
          name: uniqueName('Full'),
          auto_fund: true,
          domain: 'shop.example.com',
          hardware_wallet: true,
          mfa_required: true,
          platform_sale_fee: 250,
        },
      });
      assert.equal(response.statusCode, 201, response.body);
      const org = response.json();
      assert.equal(org.auto_fund, true);
      assert.equal(org.domain, 'shop.example.com');
      assert.equal(org.hardware_wallet, true);
      assert.equal(org.mfa_required, true);
      assert.equal(org.platform_sale_fee, 250);
    });

    it('answers 409 ALREADY_EXISTS for a name taken in any case, and creates nothing', async () => {
      const name = uniqueName('Unique Name');
      const first = await env.call('POST', '/v1/organizations', {
        token: env.platformAdmin.token,
        body: { name },
      });
      assert.equal(first.statusCode, 201);
      const before = await organizationCount();
      for (const taken of [name, name.toUpperCase(), name.toLowerCase()]) {
        const response = await env.call('POST', '/v1/organizations', {
          token: env.platformAdmin.token,
          body: { name: taken },
        });
        assertError(response, 409, 'ALREADY_EXISTS');
      }
      assert.equal(await organizationCount(), before);
    });

    it('creates one organization when two creations of one name race: the other answers 409', async () => {
      const name = uniqueName('Race');
      const create = (variant: string) =>
        env.call('POST', '/v1/organizations', { token: env.platformAdmin.token, body: { name: variant } });
      const responses = await Promise.all([create(name), create(name.toUpperCase()), create(name)]);
      assert.deepEqual(responses.map((r) => r.statusCode).sort(), [201, 409, 409]);
      for (const response of responses.filter((r) => r.statusCode === 409)) {
        assert.equal(response.json().error.code, 'ALREADY_EXISTS');
      }
    });

    it('is for platform admins only (403 for org admins and members, 401 without credentials)', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const before = await organizationCount();
      for (const token of [admin.token, member.token]) {
        const response = await env.call('POST', '/v1/organizations', {
          token,
          body: { name: uniqueName('Nope') },
        });
        assertError(response, 403, 'FORBIDDEN');
      }
      const anonymous = await env.call('POST', '/v1/organizations', { body: { name: uniqueName('Anon') } });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(await organizationCount(), before);
    });

    it('rejects invalid bodies with 400 VALIDATION_FAILED', async () => {
      const cases: unknown[] = [
        {},
        { name: '' },
        { name: 'x'.repeat(201) },
        { name: uniqueName('Fee'), platform_sale_fee: 10001 },
        { name: uniqueName('Fee'), platform_sale_fee: -1 },
        { name: uniqueName('Fee'), platform_sale_fee: 1.5 },
        { name: uniqueName('Fee'), platform_sale_fee: '100' },
        { name: uniqueName('Domain'), domain: 'not a domain' },
        { name: uniqueName('Extra'), is_enabled: false },
        { name: uniqueName('Extra'), payout_address: '0x0000000000000000000000000000000000000000' },
      ];
      const before = await organizationCount();
      for (const body of cases) {
        const response = await env.call('POST', '/v1/organizations', {
          token: env.platformAdmin.token,
          body,
        });
        assertError(response, 400, 'VALIDATION_FAILED');
        assert.ok(response.json().error.fields.length > 0);
      }
      assert.equal(await organizationCount(), before);
    });

    it('accepts the fee bounds 0 and 10000', async () => {
      for (const fee of [0, 10000]) {
        const response = await env.call('POST', '/v1/organizations', {
          token: env.platformAdmin.token,
          body: { name: uniqueName('Bound'), platform_sale_fee: fee },
        });
        assert.equal(response.statusCode, 201, response.body);
        assert.equal(response.json().platform_sale_fee, fee);
      }
    });
  });

  describe('list and get', () => {
    it('lists one organization, the own, for org admins and members', async () => {
      const org = await env.createOrganization();
      await env.createOrganization();
      for (const role of ['ORG_ADMIN', 'ORG_MEMBER'] as const) {
        const actor = await env.createUser(org.id, role);
        const response = await env.call('GET', '/v1/organizations', { token: actor.token });
        assert.equal(response.statusCode, 200);
        const page = response.json();
        assert.deepEqual(
          page.results.map((o: { id: string }) => o.id),
          [org.id],
        );
        assert.equal(page.total_results, 1);
        assert.equal(page.has_more, false);
        assert.equal(page.cursor, null);
      }
    });

    it('lists every organization for platform admins', async () => {
      const a = await env.createOrganization();
      const b = await env.createOrganization();
      const response = await env.call('GET', '/v1/organizations', { token: env.platformAdmin.token });
      assert.equal(response.statusCode, 200);
      const page = response.json();
      assert.equal(page.total_results, await organizationCount());
      const ids = page.results.map((o: { id: string }) => o.id);
      for (const id of [a.id, b.id, env.platformOrganizationId]) assert.ok(ids.includes(id));
    });

    it('requires credentials (401)', async () => {
      const response = await env.call('GET', '/v1/organizations');
      assertError(response, 401, 'UNAUTHENTICATED');
    });

    it('gets the own organization, for admins and members', async () => {
      const org = await env.createOrganization();
      for (const role of ['ORG_ADMIN', 'ORG_MEMBER'] as const) {
        const actor = await env.createUser(org.id, role);
        const response = await env.call('GET', `/v1/organizations/${org.id}`, { token: actor.token });
        assert.equal(response.statusCode, 200);
        assert.equal(response.json().id, org.id);
        assert.equal(response.json().name, org.name);
      }
    });

    it('answers 404, never 403, for another organization or an unknown id', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      for (const id of [other.id, UNKNOWN_ID, env.platformOrganizationId]) {
        const response = await env.call('GET', `/v1/organizations/${id}`, { token: admin.token });
        assertError(response, 404, 'NOT_FOUND');
      }
      const platform = await env.call('GET', `/v1/organizations/${other.id}`, {
        token: env.platformAdmin.token,
      });
      assert.equal(platform.statusCode, 200);
      const unknown = await env.call('GET', `/v1/organizations/${UNKNOWN_ID}`, {
        token: env.platformAdmin.token,
      });
      assert.equal(unknown.statusCode, 404);
    });

    it('answers 400 for an organization id that is not a UUID', async () => {
      const response = await env.call('GET', '/v1/organizations/platform', {
        token: env.platformAdmin.token,
      });
      assertError(response, 400, 'VALIDATION_FAILED');
    });
  });

  describe('pagination', () => {
    it('pages through every organization with limit and cursor, never repeating one', async () => {
      const created = [];
      for (let i = 0; i < 7; i++) created.push(await env.createOrganization(uniqueName(`Paged ${i}`)));
      const total = await organizationCount();
      assert.ok(total >= 8);

      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const query: Record<string, string> = { limit: '3' };
        if (cursor !== undefined) query.cursor = cursor;
        const response = await env.call('GET', '/v1/organizations', {
          token: env.platformAdmin.token,
          query,
        });
        assert.equal(response.statusCode, 200, response.body);
        const page = response.json();
        pages++;
        assert.equal(page.total_results, total);
        assert.ok(page.results.length <= 3);
        seen.push(...page.results.map((o: { id: string }) => o.id));
        if (!page.has_more) {
          assert.equal(page.cursor, null);
          break;
        }
        assert.equal(page.results.length, 3);
        assert.equal(typeof page.cursor, 'string');
        cursor = page.cursor;
      }
      assert.equal(pages, Math.ceil(total / 3));
      assert.equal(seen.length, total);
      assert.equal(new Set(seen).size, total);
      for (const org of created) assert.ok(seen.includes(org.id), org.name);
      assert.equal(seen[0], env.platformOrganizationId);
      // Creation time ascending, ties broken by id.
      const ordered = await env.database.db
        .selectFrom('organizations')
        .select('id')
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        seen,
        ordered.map((o) => o.id),
      );

      const descending: string[] = [];
      cursor = undefined;
      for (;;) {
        const query: Record<string, string> = { limit: '3', order_direction: 'DESC' };
        if (cursor !== undefined) query.cursor = cursor;
        const response = await env.call('GET', '/v1/organizations', {
          token: env.platformAdmin.token,
          query,
        });
        assert.equal(response.statusCode, 200, response.body);
        descending.push(...response.json().results.map((o: { id: string }) => o.id));
        if (!response.json().has_more) break;
        cursor = response.json().cursor;
      }
      assert.deepEqual(descending, [...seen].reverse());
    });

    it('returns everything in one page at the maximum limit of 100', async () => {
      const response = await env.call('GET', '/v1/organizations', {
        token: env.platformAdmin.token,
        query: { limit: '100' },
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().results.length, await organizationCount());
      assert.equal(response.json().has_more, false);
    });

    it('rejects limit 0, limit 101 and a bad order_direction with 400, not a clamp', async () => {
      const queries: Record<string, string>[] = [
        { limit: '0' },
        { limit: '101' },
        { limit: '-1' },
        { order_direction: 'asc' },
      ];
      for (const query of queries) {
        const response = await env.call('GET', '/v1/organizations', {
          token: env.platformAdmin.token,
          query,
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });

    it('rejects a forged cursor, and a cursor reused with another order, with 400 INVALID_CURSOR', async () => {
      await env.createOrganization();
      const first = await env.call('GET', '/v1/organizations', {
        token: env.platformAdmin.token,
        query: { limit: '1' },
      });
      assert.equal(first.json().has_more, true);
      const cursor = first.json().cursor as string;
      const forged = Buffer.from(JSON.stringify({ v: 'x', i: 'y', f: 'z' })).toString('base64url');
      const queries: Record<string, string>[] = [
        { limit: '1', cursor, order_direction: 'DESC' },
        { limit: '1', cursor: forged },
        { limit: '1', cursor: 'not base64 json' },
      ];
      for (const query of queries) {
        const response = await env.call('GET', '/v1/organizations', {
          token: env.platformAdmin.token,
          query,
        });
        assertError(response, 400, 'INVALID_CURSOR');
      }
    });

    it('does not let an org admin reach other organizations with a platform admin cursor', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const platformPage = await env.call('GET', '/v1/organizations', {
        token: env.platformAdmin.token,
        query: { limit: '1' },
      });
      const response = await env.call('GET', '/v1/organizations', {
        token: admin.token,
        query: { limit: '1', cursor: platformPage.json().cursor },
      });
      assertError(response, 400, 'INVALID_CURSOR');
    });
  });

  it('refuses network_ids that name no registered network (400, nothing changed)', async () => {
    const org = await env.createOrganization();
    const response = await env.call('PATCH', `/v1/organizations/${org.id}`, {
      token: env.platformAdmin.token,
      body: { network_ids: [1, 424242] },
    });
    assertError(response, 400, 'VALIDATION_FAILED');
    assert.deepEqual(response.json().error.fields, [
      { path: '/network_ids', message: 'unknown network 424242' },
    ]);
    const row = await env.database.db
      .selectFrom('organizations')
      .select('network_ids')
      .where('id', '=', org.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row.network_ids, []);
  });

  describe('edit', () => {
    it('lets a platform admin change every field', async () => {
      const org = await env.createOrganization();
      const name = uniqueName('Renamed');
      const response = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: env.platformAdmin.token,
        body: {
          name,
          mfa_required: true,
          network_ids: [1, 31337],
          card_provider_connect_types: ['STANDARD'],
          identity_provider_id: 'idp-1',
          auto_fund: true,
          domain: 'nft.example.org',
          hardware_wallet: true,
          platform_sale_fee: 500,
          payout_address: '0x52908400098527886e0f7030069857d2e4169ee7',
        },
      });
      assert.equal(response.statusCode, 200, response.body);
      const edited = response.json();
      assert.equal(edited.name, name);
      assert.equal(edited.mfa_required, true);
      assert.deepEqual(edited.network_ids, [1, 31337]);
      assert.deepEqual(edited.card_provider_connect_types, ['STANDARD']);
      assert.equal(edited.identity_provider_id, 'idp-1');
      assert.equal(edited.auto_fund, true);
      assert.equal(edited.domain, 'nft.example.org');
      assert.equal(edited.hardware_wallet, true);
      assert.equal(edited.platform_sale_fee, 500);
      assert.equal(edited.payout_address, '0x52908400098527886E0F7030069857D2E4169EE7');
      const fetched = await env.call('GET', `/v1/organizations/${org.id}`, {
        token: env.platformAdmin.token,
      });
      assert.deepEqual(fetched.json(), edited);
    });

    it('treats null on a non-nullable field as "leave it" and null on a nullable field as "clear it"', async () => {
      const org = await env.createOrganization();
      const set = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: env.platformAdmin.token,
        body: { domain: 'a.example.org', identity_provider_id: 'idp', auto_fund: true },
      });
      assert.equal(set.statusCode, 200);
      const response = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: env.platformAdmin.token,
        body: { name: null, is_enabled: null, auto_fund: null, domain: null, identity_provider_id: null },
      });
      assert.equal(response.statusCode, 200, response.body);
      const edited = response.json();
      assert.equal(edited.name, org.name);
      assert.equal(edited.is_enabled, true);
      assert.equal(edited.auto_fund, true);
      assert.equal(edited.domain, null);
      assert.equal(edited.identity_provider_id, null);
    });

    it('returns the organization unchanged for an empty body', async () => {
      const org = await env.createOrganization();
      const response = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: env.platformAdmin.token,
        body: {},
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().name, org.name);
    });

    it('lets an org admin change mfa_required and payout_address of its own organization', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const response = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: admin.token,
        body: { payout_address: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359', mfa_required: false },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().payout_address, '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359');

      const mfa = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: admin.token,
        body: { mfa_required: true },
      });
      assert.equal(mfa.statusCode, 200, mfa.body);
      assert.equal(mfa.json().mfa_required, true);
      // From now on the admin, who has no MFA, is locked out of everything but /v1/me*.
      const locked = await env.call('GET', `/v1/organizations/${org.id}`, { token: admin.token });
      assertError(locked, 403, 'MFA_REQUIRED');
    });

    it('forbids an org admin every other field, naming it (403 FORBIDDEN), and changes nothing', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const fields: Record<string, unknown> = {
        name: uniqueName('Hijack'),
        is_enabled: true,
        network_ids: [1],
        card_provider_connect_types: ['EXPRESS'],
        identity_provider_id: 'idp',
        auto_fund: true,
        domain: 'x.example.org',
        hardware_wallet: true,
        platform_sale_fee: 0,
      };
      for (const [field, value] of Object.entries(fields)) {
        const response = await env.call('PATCH', `/v1/organizations/${org.id}`, {
          token: admin.token,
          body: { payout_address: null, [field]: value },
        });
        assertError(response, 403, 'FORBIDDEN');
        assert.match(response.json().error.detail, new RegExp(`\\b${field}\\b`));
      }
      const row = await env.database.db
        .selectFrom('organizations')
        .selectAll()
        .where('id', '=', org.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.name, org.name);
      assert.deepEqual(row.network_ids, []);
      assert.equal(row.auto_fund, false);
    });

    it('lets an org admin send null for a platform field that null leaves as it is, but not clear one', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const noOps = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: admin.token,
        body: {
          name: null,
          is_enabled: null,
          network_ids: null,
          card_provider_connect_types: null,
          auto_fund: null,
          hardware_wallet: null,
          platform_sale_fee: null,
          payout_address: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359',
        },
      });
      assert.equal(noOps.statusCode, 200, noOps.body);
      assert.equal(noOps.json().name, org.name);
      assert.equal(noOps.json().payout_address, '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359');

      for (const field of ['domain', 'identity_provider_id']) {
        const response = await env.call('PATCH', `/v1/organizations/${org.id}`, {
          token: admin.token,
          body: { [field]: null },
        });
        assertError(response, 403, 'FORBIDDEN');
        assert.match(response.json().error.detail, new RegExp(`\\b${field}\\b`));
      }
    });

    it('forbids members to edit (403)', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const response = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: member.token,
        body: { payout_address: null },
      });
      assertError(response, 403, 'FORBIDDEN');
    });

    it('answers 404, not 403, when an org admin edits another organization, whatever the fields', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      for (const body of [{ mfa_required: true }, { name: uniqueName('Other') }, { is_enabled: false }]) {
        const response = await env.call('PATCH', `/v1/organizations/${other.id}`, {
          token: admin.token,
          body,
        });
        assertError(response, 404, 'NOT_FOUND');
      }
      const row = await env.database.db
        .selectFrom('organizations')
        .selectAll()
        .where('id', '=', other.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.mfa_required, false);
      assert.equal(row.is_enabled, true);
    });

    it('answers 404 for an unknown organization', async () => {
      const response = await env.call('PATCH', `/v1/organizations/${UNKNOWN_ID}`, {
        token: env.platformAdmin.token,
        body: { auto_fund: true },
      });
      assertError(response, 404, 'NOT_FOUND');
    });

    it('answers 409 ALREADY_EXISTS when renaming to a name taken in any case; the own name in another case is fine', async () => {
      const a = await env.createOrganization(uniqueName('Taken'));
      const b = await env.createOrganization();
      const response = await env.call('PATCH', `/v1/organizations/${b.id}`, {
        token: env.platformAdmin.token,
        body: { name: a.name.toUpperCase() },
      });
      assertError(response, 409, 'ALREADY_EXISTS');

      const recase = await env.call('PATCH', `/v1/organizations/${a.id}`, {
        token: env.platformAdmin.token,
        body: { name: a.name.toLowerCase() },
      });
      assert.equal(recase.statusCode, 200, recase.body);
      assert.equal(recase.json().name, a.name.toLowerCase());
    });

    it('does not let an admin disable its own organization (409 INVALID_STATE)', async () => {
      const response = await env.call('PATCH', `/v1/organizations/${env.platformOrganizationId}`, {
        token: env.platformAdmin.token,
        body: { is_enabled: false },
      });
      assertError(response, 409, 'INVALID_STATE');
      assert.equal((await env.call('GET', '/v1/me', { token: env.platformAdmin.token })).statusCode, 200);
    });

    it('disabling an organization locks its users out; enabling it lets them back in', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const disabled = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: env.platformAdmin.token,
        body: { is_enabled: false },
      });
      assert.equal(disabled.statusCode, 200);
      assert.equal(disabled.json().is_enabled, false);
      assert.equal((await env.call('GET', '/v1/me', { token: member.token })).statusCode, 401);
      const login = await env.call('POST', '/v1/auth/login', {
        body: { email: member.user.email, password: member.password },
        ip: '10.88.0.1',
      });
      assert.notEqual(login.statusCode, 200);

      const enabled = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: env.platformAdmin.token,
        body: { is_enabled: true },
      });
      assert.equal(enabled.statusCode, 200);
      assert.equal((await env.call('GET', '/v1/me', { token: member.token })).statusCode, 200);
    });

    it('refuses 100,000 connect types from an organization admin at once, without stalling the process', async () => {
      const tenant = await env.createTenant();
      const types = Array.from({ length: 100_000 }, (_, i) => i.toString(36));
      const started = performance.now();
      const response = await env.call('PATCH', `/v1/organizations/${tenant.organizationId}`, {
        token: tenant.admin.token,
        body: { card_provider_connect_types: types },
      });
      const elapsed = performance.now() - started;
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.ok(elapsed < 2000, `took ${Math.round(elapsed)} ms`);
    });

    it('takes each connect type at most once, so at most one of each', async () => {
      const org = await env.createOrganization();
      const cases = [
        ['STANDARD', 'STANDARD'],
        ['STANDARD', 'EXPRESS', 'CUSTOM', 'STANDARD'],
      ];
      for (const types of cases) {
        const response = await env.call('PATCH', `/v1/organizations/${org.id}`, {
          token: env.platformAdmin.token,
          body: { card_provider_connect_types: types },
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
      const all = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: env.platformAdmin.token,
        body: { card_provider_connect_types: ['CUSTOM', 'STANDARD', 'EXPRESS'] },
      });
      assert.equal(all.statusCode, 200, all.body);
    });

    it('rejects invalid bodies with 400 VALIDATION_FAILED', async () => {
      const org = await env.createOrganization();
      const cases: unknown[] = [
        { unknown_field: true },
        { name: '' },
        { network_ids: [1, 1] },
        { network_ids: [-1] },
        { network_ids: ['1'] },
        { card_provider_connect_types: ['PREMIUM'] },
        { platform_sale_fee: 10001 },
        { mfa_required: 'yes' },
        { payout_address: '0x1234' },
      ];
      for (const body of cases) {
        const response = await env.call('PATCH', `/v1/organizations/${org.id}`, {
          token: env.platformAdmin.token,
          body,
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });
  });
});
