import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Address, getAddress, recoverMessageAddress } from 'viem';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { deadNodeUrl, networkBody, setBalance, useNodes } from '../../../../../test/support/networks.ts';
import type { DevChain } from '../../../../chain/dev-chain.ts';
import { signerOf } from '../../wallets/wallets.service.ts';

const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';
const PLAIN_PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/** Organization wallets: created with the organization, key encrypted, listed with balances. */
describe('organization wallets', () => {
  let env: TestEnv;
  let token: string;
  let node: DevChain;
  const startNode = useNodes();
  // 31337: enabled, answering; 1337: registered but disabled; 4242: enabled, its node down.
  const LIVE = 31337;
  const DISABLED = 1337;
  const DOWN = 4242;

  before(async () => {
    env = await setupTest();
    token = env.platformAdmin.token;
    const [live, disabled, down] = await Promise.all([startNode(LIVE), startNode(DISABLED), startNode(DOWN)]);
    node = live;
    for (const [id, chain, enabled] of [
      [LIVE, live, true],
      [DISABLED, disabled, false],
      [DOWN, down, true],
    ] as const) {
      const response = await env.call('POST', '/v1/networks', {
        token,
        body: networkBody(id, chain.rpcUrl, { enabled }),
      });
      assert.equal(response.statusCode, 201, response.body);
    }
    await down.stop();
  });
  after(() => env.close());

  async function walletsOf(organizationId: string) {
    return env.database.db
      .selectFrom('wallets')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .execute();
  }

  async function setNetworks(
    organizationId: string,
    networkIds: number[],
    extra: Record<string, unknown> = {},
  ) {
    const response = await env.call('PATCH', `/v1/organizations/${organizationId}`, {
      token,
      body: { network_ids: networkIds, ...extra },
    });
    assert.equal(response.statusCode, 200, response.body);
  }

  describe('creation', () => {
    it('gives a new organization exactly one ORGANIZATION wallet, through the API too', async () => {
      const response = await env.call('POST', '/v1/organizations', {
        token,
        body: { name: `Wallet org ${randomBytes(4).toString('hex')}` },
      });
      assert.equal(response.statusCode, 201, response.body);
      const wallets = await walletsOf(response.json().id);
      assert.equal(wallets.length, 1);
      assert.equal(wallets[0]?.kind, 'ORGANIZATION');
      assert.equal(wallets[0]?.address, getAddress(wallets[0]!.address));
    });

    it('keeps the private key encrypted at rest, and signerOf recovers the wallet’s address', async () => {
      const org = await env.createOrganization();
      const [wallet] = await walletsOf(org.id);
      assert.ok(wallet);
      assert.doesNotMatch(wallet.private_key, PLAIN_PRIVATE_KEY);
      assert.ok(!wallet.private_key.toLowerCase().includes(wallet.address.slice(2).toLowerCase()));
      const decrypted = env.ctx.keyring.decrypt(wallet.private_key);
      assert.match(decrypted, /^0x[0-9a-f]{64}$/);
      assert.ok(!wallet.private_key.includes(decrypted.slice(2)), 'the stored key contains the plain key');

      const signer = signerOf(env.ctx.keyring, wallet);
      assert.equal(signer.address, wallet.address);
      const message = `wallet ${wallet.id}`;
      const signature = await signer.signMessage({ message });
      assert.equal(await recoverMessageAddress({ message, signature }), wallet.address);
    });

    it('gives every organization a wallet of its own', async () => {
      const a = await env.createOrganization();
      const b = await env.createOrganization();
      const [wa] = await walletsOf(a.id);
      const [wb] = await walletsOf(b.id);
      assert.ok(wa && wb);
      assert.notEqual(wa.address, wb.address);
      assert.notEqual(env.ctx.keyring.decrypt(wa.private_key), env.ctx.keyring.decrypt(wb.private_key));
    });
  });

  describe('GET /v1/organizations/{organization_id}/wallets', () => {
    it('lists the wallet with its balance on each enabled network of the organization; a down node gives null', async () => {
      const org = await env.createOrganization();
      await setNetworks(org.id, [LIVE, DISABLED, DOWN]);
      const [wallet] = await walletsOf(org.id);
      const wei = 1_234_567_890_123_456_789n;
      await setBalance(node, wallet!.address as Address, wei);

      const response = await env.call('GET', `/v1/organizations/${org.id}/wallets`, { token });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        results: [
          {
            id: wallet!.id,
            address: wallet!.address,
            network_ids: [LIVE, DOWN].sort((x, y) => x - y),
            auto_fund: false,
            balance: { [String(LIVE)]: wei.toString(), [String(DOWN)]: null },
          },
        ],
        cursor: null,
        has_more: false,
        total_results: 1,
      });
    });

    it('shows a zero balance as "0", and the organization’s auto_fund', async () => {
      const org = await env.createOrganization();
      await setNetworks(org.id, [LIVE], { auto_fund: true });
      const response = await env.call('GET', `/v1/organizations/${org.id}/wallets`, { token });
      assert.equal(response.statusCode, 200, response.body);
      const [wallet] = response.json().results;
      assert.equal(wallet.auto_fund, true);
      assert.deepEqual(wallet.network_ids, [LIVE]);
      assert.deepEqual(wallet.balance, { [String(LIVE)]: '0' });
    });

    it('shows no networks and no balances for an organization without networks', async () => {
      const org = await env.createOrganization();
      const response = await env.call('GET', `/v1/organizations/${org.id}/wallets`, { token });
      assert.equal(response.statusCode, 200, response.body);
      const [wallet] = response.json().results;
      assert.deepEqual(
        { network_ids: wallet.network_ids, balance: wallet.balance },
        { network_ids: [], balance: {} },
      );
    });

    it('stops showing a network once it is disabled, and shows it again once enabled', async () => {
      const secondLive = 31338;
      const chain = await startNode(secondLive);
      const created = await env.call('POST', '/v1/networks', {
        token,
        body: networkBody(secondLive, chain.rpcUrl),
      });
      assert.equal(created.statusCode, 201, created.body);
      const org = await env.createOrganization();
      await setNetworks(org.id, [secondLive]);
      const read = async () =>
        (await env.call('GET', `/v1/organizations/${org.id}/wallets`, { token })).json().results[0]
          .network_ids;
      assert.deepEqual(await read(), [secondLive]);
      await env.call('PATCH', `/v1/networks/${secondLive}`, { token, body: { enabled: false } });
      assert.deepEqual(await read(), []);
      await env.call('PATCH', `/v1/networks/${secondLive}`, { token, body: { enabled: true } });
      assert.deepEqual(await read(), [secondLive]);
    });

    it('follows a network’s new url for balances', async () => {
      const id = 31339;
      const first = await startNode(id);
      const second = await startNode(id);
      const created = await env.call('POST', '/v1/networks', { token, body: networkBody(id, first.rpcUrl) });
      assert.equal(created.statusCode, 201, created.body);
      const org = await env.createOrganization();
      await setNetworks(org.id, [id]);
      const [wallet] = await walletsOf(org.id);
      await setBalance(first, wallet!.address as Address, 1n);
      await setBalance(second, wallet!.address as Address, 2n);
      const read = async () =>
        (await env.call('GET', `/v1/organizations/${org.id}/wallets`, { token })).json().results[0].balance[
          String(id)
        ];
      assert.equal(await read(), '1');
      const moved = await env.call('PATCH', `/v1/networks/${id}`, {
        token,
        body: { config: { url: second.rpcUrl } },
      });
      assert.equal(moved.statusCode, 200, moved.body);
      assert.equal(await read(), '2');
      // Pointed (directly in the table) at a node that does not answer: null, never a failed page.
      const dead = await deadNodeUrl();
      await env.database.db
        .updateTable('networks')
        .set({ config: JSON.stringify({ ...moved.json().config, url: dead }) })
        .where('id', '=', id)
        .execute();
      const response = await env.call('GET', `/v1/organizations/${org.id}/wallets`, { token });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().results[0].balance[String(id)], null);
    });

    it('lets the organization’s members and admins read their own wallets', async () => {
      const org = await env.createOrganization();
      for (const role of ['ORG_MEMBER', 'ORG_ADMIN'] as const) {
        const actor = await env.createUser(org.id, role);
        const response = await env.call('GET', `/v1/organizations/${org.id}/wallets`, { token: actor.token });
        assert.equal(response.statusCode, 200, `${role}: ${response.body}`);
        assert.equal(response.json().results.length, 1);
        assert.equal(response.json().results[0].address, (await walletsOf(org.id))[0]?.address);
      }
    });

    it('answers 404 for another organization’s wallets and for an unknown organization', async () => {
      const org = await env.createOrganization();
      const other = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      for (const id of [other.id, UNKNOWN_ID]) {
        const response = await env.call('GET', `/v1/organizations/${id}/wallets`, { token: admin.token });
        assertError(response, 404, 'NOT_FOUND');
      }
      const unknown = await env.call('GET', `/v1/organizations/${UNKNOWN_ID}/wallets`, { token });
      assert.equal(unknown.statusCode, 404);
      const otherAsPlatform = await env.call('GET', `/v1/organizations/${other.id}/wallets`, { token });
      assert.equal(otherAsPlatform.statusCode, 200);
    });

    it('validates the path and the list parameters (400)', async () => {
      const org = await env.createOrganization();
      for (const [path, query] of [
        ['/v1/organizations/not-a-uuid/wallets', {}],
        [`/v1/organizations/${org.id}/wallets`, { limit: '0' }],
        [`/v1/organizations/${org.id}/wallets`, { limit: '101' }],
        [`/v1/organizations/${org.id}/wallets`, { cursor: 'garbage' }],
      ] as const) {
        const response = await env.call('GET', path, { token, query });
        assert.equal(response.statusCode, 400, `${path} ${JSON.stringify(query)}: ${response.body}`);
      }
    });
  });
});
