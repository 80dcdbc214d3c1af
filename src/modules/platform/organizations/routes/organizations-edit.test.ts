import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { insertNetworks, UNKNOWN_ID, uniqueName } from './organizations.test-setup.ts';

/** PATCH /v1/organizations/{organization_id}: what platform and organization admins may change. */
describe('organizations', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
    await insertNetworks(env);
  });
  after(() => env.close());

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
