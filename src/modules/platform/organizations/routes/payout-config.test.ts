import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';

const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';
// EIP-55 test vectors: the checksummed form and the same address in other cases.
const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const LOWER = CHECKSUMMED.toLowerCase();
const UPPER = `0x${CHECKSUMMED.slice(2).toUpperCase()}`;
const WRONG_CHECKSUM = '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const OTHER_CHECKSUMMED = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';

describe('payout configuration', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  function url(organizationId: string): string {
    return `/v1/organizations/${organizationId}/payout-config`;
  }

  async function storedPayout(organizationId: string) {
    return env.database.db
      .selectFrom('organizations')
      .select(['payout_address', 'platform_sale_fee'])
      .where('id', '=', organizationId)
      .executeTakeFirstOrThrow();
  }

  describe('get', () => {
    it('starts with no payout address and a zero fee, readable by admins and members', async () => {
      const org = await env.createOrganization();
      for (const role of ['ORG_ADMIN', 'ORG_MEMBER'] as const) {
        const actor = await env.createUser(org.id, role);
        const response = await env.call('GET', url(org.id), { token: actor.token });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), { payout_address: null, platform_sale_fee: 0 });
      }
    });

    it('answers 404 for another organization or an unknown id, and 401 without credentials', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      for (const id of [other.id, UNKNOWN_ID]) {
        const response = await env.call('GET', url(id), { token: admin.token });
        assertError(response, 404, 'NOT_FOUND');
      }
      assert.equal(
        (await env.call('GET', url(other.id), { token: env.platformAdmin.token })).statusCode,
        200,
      );
      assert.equal((await env.call('GET', url(org.id))).statusCode, 401);
    });
  });

  describe('payout_address', () => {
    it('accepts an address in any uniform case and returns it checksummed', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      for (const address of [LOWER, UPPER, CHECKSUMMED]) {
        const response = await env.call('PATCH', url(org.id), {
          token: admin.token,
          body: { payout_address: address },
        });
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), { payout_address: CHECKSUMMED, platform_sale_fee: 0 });
        assert.equal((await storedPayout(org.id)).payout_address, CHECKSUMMED);
      }
      const fetched = await env.call('GET', url(org.id), { token: admin.token });
      assert.equal(fetched.json().payout_address, CHECKSUMMED);
      const organization = await env.call('GET', `/v1/organizations/${org.id}`, { token: admin.token });
      assert.equal(organization.json().payout_address, CHECKSUMMED);
    });

    it('rejects a mixed-case address with a wrong EIP-55 checksum (400) and keeps the old one', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const set = await env.call('PATCH', url(org.id), {
        token: admin.token,
        body: { payout_address: OTHER_CHECKSUMMED },
      });
      assert.equal(set.statusCode, 200);
      const response = await env.call('PATCH', url(org.id), {
        token: admin.token,
        body: { payout_address: WRONG_CHECKSUM },
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        response.json().error.fields.map((f: { path: string }) => f.path),
        ['/payout_address'],
      );
      assert.equal((await storedPayout(org.id)).payout_address, OTHER_CHECKSUMMED);
    });

    it('rejects a wrong checksum through PATCH /v1/organizations/{id} too', async () => {
      const org = await env.createOrganization();
      const response = await env.call('PATCH', `/v1/organizations/${org.id}`, {
        token: env.platformAdmin.token,
        body: { payout_address: WRONG_CHECKSUM, auto_fund: true },
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      const row = await env.database.db
        .selectFrom('organizations')
        .select(['payout_address', 'auto_fund'])
        .where('id', '=', org.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { payout_address: null, auto_fund: false });
    });

    it('rejects values that are not addresses with 400', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const cases = [
        '0x1234',
        `${LOWER}00`,
        LOWER.slice(2),
        `0X${LOWER.slice(2)}`,
        '0xzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz',
        '',
        42,
      ];
      for (const payout_address of cases) {
        const response = await env.call('PATCH', url(org.id), {
          token: admin.token,
          body: { payout_address },
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
      assert.equal((await storedPayout(org.id)).payout_address, null);
    });

    it('clears the address with null', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      await env.call('PATCH', url(org.id), { token: admin.token, body: { payout_address: CHECKSUMMED } });
      const response = await env.call('PATCH', url(org.id), {
        token: admin.token,
        body: { payout_address: null },
      });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { payout_address: null, platform_sale_fee: 0 });
      assert.equal((await storedPayout(org.id)).payout_address, null);
    });

    it('leaves both values as they are for an empty body', async () => {
      const org = await env.createOrganization();
      await env.call('PATCH', url(org.id), {
        token: env.platformAdmin.token,
        body: { payout_address: CHECKSUMMED, platform_sale_fee: 75 },
      });
      const response = await env.call('PATCH', url(org.id), { token: env.platformAdmin.token, body: {} });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { payout_address: CHECKSUMMED, platform_sale_fee: 75 });
    });
  });

  describe('platform_sale_fee', () => {
    it('is set by platform admins, from 0 to 10000 basis points', async () => {
      const org = await env.createOrganization();
      for (const fee of [10000, 0, 123]) {
        const response = await env.call('PATCH', url(org.id), {
          token: env.platformAdmin.token,
          body: { platform_sale_fee: fee },
        });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(response.json().platform_sale_fee, fee);
        assert.equal((await storedPayout(org.id)).platform_sale_fee, fee);
      }
    });

    it('rejects fees outside 0..10000 or not integers with 400, changing nothing', async () => {
      const org = await env.createOrganization();
      for (const fee of [10001, -1, 2.5, '100', 1e9]) {
        const response = await env.call('PATCH', url(org.id), {
          token: env.platformAdmin.token,
          body: { platform_sale_fee: fee, payout_address: CHECKSUMMED },
        });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
      assert.deepEqual(await storedPayout(org.id), { payout_address: null, platform_sale_fee: 0 });
    });

    it('is forbidden to org admins (403 FORBIDDEN) and nothing changes, not even the address', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const response = await env.call('PATCH', url(org.id), {
        token: admin.token,
        body: { platform_sale_fee: 0, payout_address: CHECKSUMMED },
      });
      assertError(response, 403, 'FORBIDDEN');
      assert.match(response.json().error.detail, /platform_sale_fee/);
      assert.deepEqual(await storedPayout(org.id), { payout_address: null, platform_sale_fee: 0 });
    });

    it('lets an org admin send platform_sale_fee null, which leaves the fee as it is', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      await env.call('PATCH', url(org.id), {
        token: env.platformAdmin.token,
        body: { platform_sale_fee: 40 },
      });
      const response = await env.call('PATCH', url(org.id), {
        token: admin.token,
        body: { platform_sale_fee: null, payout_address: LOWER },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { payout_address: CHECKSUMMED, platform_sale_fee: 40 });
    });
  });

  describe('access', () => {
    it('forbids members to edit (403)', async () => {
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const response = await env.call('PATCH', url(org.id), {
        token: member.token,
        body: { payout_address: CHECKSUMMED },
      });
      assertError(response, 403, 'FORBIDDEN');
      assert.equal((await storedPayout(org.id)).payout_address, null);
    });

    it('answers 404, never 403, when an org admin edits another organization, whatever the fields', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      for (const body of [{ payout_address: CHECKSUMMED }, { platform_sale_fee: 10 }, {}]) {
        const response = await env.call('PATCH', url(other.id), { token: admin.token, body });
        assertError(response, 404, 'NOT_FOUND');
      }
      assert.deepEqual(await storedPayout(other.id), { payout_address: null, platform_sale_fee: 0 });
    });

    it('answers 404 for an unknown organization, even for a platform admin', async () => {
      const response = await env.call('PATCH', url(UNKNOWN_ID), {
        token: env.platformAdmin.token,
        body: { platform_sale_fee: 10 },
      });
      assertError(response, 404, 'NOT_FOUND');
    });

    it('rejects unknown fields with 400', async () => {
      const org = await env.createOrganization();
      const response = await env.call('PATCH', url(org.id), {
        token: env.platformAdmin.token,
        body: { payout_address: CHECKSUMMED, payout_network: 1 },
      });
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.equal((await storedPayout(org.id)).payout_address, null);
    });
  });
});
