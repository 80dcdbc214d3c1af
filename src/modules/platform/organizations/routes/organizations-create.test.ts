import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { insertNetworks, organizationCounter, uniqueName } from './organizations.test-setup.ts';

/** POST /v1/organizations (reading them: organizations-list.test.ts, editing: organizations-edit.test.ts). */
describe('organizations', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
    await insertNetworks(env);
  });
  after(() => env.close());

  const organizationCount = organizationCounter(() => env);

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
});
