import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { assertError, assertFields } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { deadNodeUrl, networkBody, useNodes } from '../../../../../test/support/networks.ts';
import type { DevChain } from '../../../../chain/dev-chain.ts';

const DEFAULT_CONFIG = {
  autoDeploy: false,
  autoFundAmount: '0',
  confirmations: 1,
  eip155: true,
  gasStrategy: { type: 'AUTO', maxFeePerGas: null, maxPriorityFeePerGas: null, bumpPercent: 13 },
  maxConcurrentTxs: 16,
  batch: { maxItems: 100, maxGas: 12_000_000, windowMs: 1000 },
  poa: false,
  txResubmitBlockCount: 3,
};

/** One above the largest Uint256. */
const TWO_TO_256 = (2n ** 256n).toString();

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Networks (platform admin writes, any authenticated user reads). */
describe('networks', () => {
  let env: TestEnv;
  let token: string;
  const startNode = useNodes();
  // Each test that creates a network uses a chain id of its own, on a node started for it.
  let otherChain: DevChain;
  before(async () => {
    env = await setupTest();
    token = env.platformAdmin.token;
    otherChain = await startNode(1337);
  });
  after(() => env.close());

  async function storedNetwork(id: number) {
    return env.database.db.selectFrom('networks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async function create(body: unknown) {
    return env.call('POST', '/v1/networks', { token, body });
  }

  /** A network on its own anvil, for tests that change it. */
  async function freshNetwork(chainId: number, extra: Record<string, unknown> = {}) {
    const node = await startNode(chainId);
    const response = await create(networkBody(chainId, node.rpcUrl, extra));
    assert.equal(response.statusCode, 201, response.body);
    return { node, network: response.json() };
  }

  describe('create', () => {
    it('registers a network with every config default filled in (201) and stores it', async () => {
      const node = await startNode(31337);
      const response = await create(networkBody(31337, node.rpcUrl, { name: 'Local', testnet: true }));
      assert.equal(response.statusCode, 201, response.body);
      const network = response.json();
      assert.match(network.created_at, ISO);
      assert.deepEqual(
        { ...network, created_at: undefined },
        {
          id: 31337,
          name: 'Local',
          enabled: true,
          testnet: true,
          payment_tokens: [],
          config: { ...DEFAULT_CONFIG, url: node.rpcUrl },
          created_at: undefined,
        },
      );
      const row = await storedNetwork(31337);
      assert.deepEqual(row?.config, { ...DEFAULT_CONFIG, url: node.rpcUrl });
      assert.equal(row?.testnet, true);
    });

    it('takes every config field as given, and fills the gasStrategy and batch fields left out', async () => {
      const node = await startNode(2001);
      const config = {
        url: node.rpcUrl,
        autoDeploy: true,
        autoFundAmount: '50000000000000000',
        confirmations: 12,
        eip155: false,
        gasStrategy: { type: 'LEGACY', maxFeePerGas: '300000000000' },
        maxConcurrentTxs: 1000,
        batch: { maxItems: 500 },
        poa: true,
        txResubmitBlockCount: null,
      };
      const response = await create({ id: 2001, name: 'Full', enabled: false, testnet: false, config });
      assert.equal(response.statusCode, 201, response.body);
      const network = response.json();
      assert.equal(network.enabled, false);
      assert.equal(network.testnet, false);
      assert.deepEqual(network.config, {
        ...config,
        gasStrategy: {
          type: 'LEGACY',
          maxFeePerGas: '300000000000',
          maxPriorityFeePerGas: null,
          bumpPercent: 13,
        },
        batch: { maxItems: 500, maxGas: 12_000_000, windowMs: 1000 },
      });
      assert.deepEqual((await storedNetwork(2001))?.config, network.config);
    });

    it('answers 409 ALREADY_EXISTS for an id that is registered, and keeps the first', async () => {
      const { network } = await freshNetwork(2002, { name: 'First' });
      const response = await create(networkBody(2002, network.config.url, { name: 'Second' }));
      assertError(response, 409, 'ALREADY_EXISTS');
      assert.equal((await storedNetwork(2002))?.name, 'First');
    });

    it('answers 400 naming /id and /config/url when the node is on another chain, and stores nothing', async () => {
      const response = await create(networkBody(2003, otherChain.rpcUrl));
      assertFields(response, ['/config/url', '/id']);
      assert.match(response.json().error.detail, /chain 1337/);
      assert.equal(await storedNetwork(2003), undefined);
    });

    it('answers 502 UPSTREAM_FAILED when the node does not answer, and stores nothing', async () => {
      const response = await create(networkBody(2004, await deadNodeUrl()));
      assertError(response, 502, 'UPSTREAM_FAILED');
      assert.equal(await storedNetwork(2004), undefined);
    });

    it('registers a disabled network without contacting its node (it may not answer yet)', async () => {
      const response = await create(networkBody(2010, await deadNodeUrl(), { enabled: false }));
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().enabled, false);
      assert.equal((await storedNetwork(2010))?.enabled, false);
    });

    it('refuses payment tokens on a disabled network: their symbol and decimals are read from its node', async () => {
      const response = await create(
        networkBody(2011, await deadNodeUrl(), {
          enabled: false,
          payment_tokens: [{ address: `0x${'11'.repeat(20)}` }],
        }),
      );
      assertFields(response, ['/payment_tokens']);
      assert.equal(await storedNetwork(2011), undefined);
    });

    it('answers 502 when the url answers HTTP but is no JSON-RPC node', async () => {
      const server = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html>a web page</html>');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const response = await create(networkBody(2005, `http://127.0.0.1:${port}/`));
        assertError(response, 502, 'UPSTREAM_FAILED');
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      assert.equal(await storedNetwork(2005), undefined);
    });

    it('rejects invalid bodies with 400 VALIDATION_FAILED naming the field, before calling any node', async () => {
      const url = otherChain.rpcUrl;
      const base = networkBody(2006, url);
      const cases: [unknown, string][] = [
        [{ ...base, id: -1 }, '/id'],
        [{ ...base, id: 1.5 }, '/id'],
        [{ ...base, id: '2006' }, '/id'],
        [{ ...base, id: 2_147_483_648 }, '/id'],
        [{ ...base, name: '' }, '/name'],
        [{ ...base, enabled: 'yes' }, '/enabled'],
        [{ ...base, unknown: 1 }, '/unknown'],
        [{ ...base, config: undefined }, '/config'],
        [{ ...base, config: {} }, '/config/url'],
        [{ ...base, config: { url: 'ftp://node.example' } }, '/config/url'],
        [{ ...base, config: { url: 'not a url' } }, '/config/url'],
        [{ ...base, config: { url, extra: true } }, '/config/extra'],
        [{ ...base, config: { url, autoDeploy: 'true' } }, '/config/autoDeploy'],
        [{ ...base, config: { url, autoFundAmount: 5 } }, '/config/autoFundAmount'],
        [{ ...base, config: { url, autoFundAmount: '-1' } }, '/config/autoFundAmount'],
        [{ ...base, config: { url, autoFundAmount: '01' } }, '/config/autoFundAmount'],
        [{ ...base, config: { url, confirmations: 0 } }, '/config/confirmations'],
        [{ ...base, config: { url, confirmations: 2.5 } }, '/config/confirmations'],
        [{ ...base, config: { url, eip155: null } }, '/config/eip155'],
        [{ ...base, config: { url, maxConcurrentTxs: 0 } }, '/config/maxConcurrentTxs'],
        [{ ...base, config: { url, maxConcurrentTxs: 1001 } }, '/config/maxConcurrentTxs'],
        [{ ...base, config: { url, poa: 1 } }, '/config/poa'],
        [{ ...base, config: { url, txResubmitBlockCount: 0 } }, '/config/txResubmitBlockCount'],
        [{ ...base, config: { url, gasStrategy: { type: 'FAST' } } }, '/config/gasStrategy/type'],
        [{ ...base, config: { url, gasStrategy: { bumpPercent: 12 } } }, '/config/gasStrategy/bumpPercent'],
        [{ ...base, config: { url, gasStrategy: { bumpPercent: 101 } } }, '/config/gasStrategy/bumpPercent'],
        [
          { ...base, config: { url, gasStrategy: { maxFeePerGas: '1e9' } } },
          '/config/gasStrategy/maxFeePerGas',
        ],
        [{ ...base, config: { url, gasStrategy: { other: 1 } } }, '/config/gasStrategy/other'],
        [
          { ...base, config: { url, gasStrategy: { maxFeePerGas: '10', maxPriorityFeePerGas: '11' } } },
          '/config/gasStrategy/maxPriorityFeePerGas',
        ],
        [{ ...base, payment_tokens: [{ address: '0x1234' }] }, '/payment_tokens/0/address'],
        [{ ...base, config: { url, autoFundAmount: TWO_TO_256 } }, '/config/autoFundAmount'],
        [
          { ...base, config: { url, gasStrategy: { maxFeePerGas: TWO_TO_256 } } },
          '/config/gasStrategy/maxFeePerGas',
        ],
        [
          { ...base, config: { url, gasStrategy: { maxPriorityFeePerGas: TWO_TO_256 } } },
          '/config/gasStrategy/maxPriorityFeePerGas',
        ],
      ];
      for (const [body, path] of cases) {
        const response = await create(body);
        assertError(response, 400, 'VALIDATION_FAILED');
        const paths = response.json().error.fields.map((f: { path: string }) => f.path);
        assert.ok(paths.includes(path), `${JSON.stringify(body)}: expected ${path} in ${paths}`);
      }
      assert.equal(await storedNetwork(2006), undefined);
    });

    it('accepts id 0 and an https url shape (the node must still answer)', async () => {
      const response = await create(networkBody(0, 'https://127.0.0.1:1/rpc'));
      // Passed validation: the failure is the node's.
      assert.equal(response.statusCode, 502, response.body);
    });

    it('is for platform admins only: organization admins get 403 and nothing is stored', async () => {
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const response = await env.call('POST', '/v1/networks', {
        token: admin.token,
        body: networkBody(1337, otherChain.rpcUrl),
      });
      assertError(response, 403, 'FORBIDDEN');
      assert.equal(await storedNetwork(1337), undefined);
    });
  });

  describe('get and list', () => {
    it('gets a network by id, for any authenticated user', async () => {
      const { network } = await freshNetwork(3001);
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      for (const actor of [token, member.token]) {
        const response = await env.call('GET', '/v1/networks/3001', { token: actor });
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), network);
      }
    });

    it('shows the node URL whole to platform admins only; others see its origin (URLs carry API keys)', async () => {
      await freshNetwork(3010);
      const keyed = 'https://user:secret@rpc.example.com/v3/0123456789abcdef?token=k';
      await env.database.db
        .updateTable('networks')
        .set({ config: sql`jsonb_set(config, '{url}', to_jsonb(${keyed}::text))` })
        .where('id', '=', 3010)
        .execute();
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const seen = async (as: string) =>
        (await env.call('GET', '/v1/networks/3010', { token: as })).json().config.url;
      assert.equal(await seen(token), keyed);
      assert.equal(await seen(admin.token), 'https://rpc.example.com');
      const listed = await env.call('GET', '/v1/networks', { token: admin.token });
      assert.ok(!listed.body.includes('0123456789abcdef') && !listed.body.includes('secret'));
    });

    it('answers 404 for an unknown id and 400 for an id that is not a non-negative integer', async () => {
      const unknown = await env.call('GET', '/v1/networks/999999', { token });
      assertError(unknown, 404, 'NOT_FOUND');
      for (const id of ['abc', '-1', '1.5', '99999999999']) {
        const response = await env.call('GET', `/v1/networks/${id}`, { token });
        assertError(response, 400, 'VALIDATION_FAILED');
      }
    });

    it('lists networks in pages, oldest first, with a cursor; members may read', async () => {
      await freshNetwork(3002);
      await freshNetwork(3003);
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const all = await env.call('GET', '/v1/networks', { token: member.token });
      assert.equal(all.statusCode, 200, all.body);
      const ids = all.json().results.map((n: { id: number }) => n.id);
      assert.ok(ids.length >= 3);
      assert.equal(all.json().total_results, ids.length);
      assert.equal(all.json().has_more, false);

      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const query: Record<string, string> = { limit: '2', ...(cursor && { cursor }) };
        const page = await env.call('GET', '/v1/networks', { token, query });
        assert.equal(page.statusCode, 200, page.body);
        assert.ok(page.json().results.length <= 2);
        seen.push(...page.json().results.map((n: { id: number }) => n.id));
        cursor = page.json().cursor;
      } while (cursor !== null);
      assert.deepEqual(seen, ids);

      const desc = await env.call('GET', '/v1/networks', { token, query: { order_direction: 'DESC' } });
      assert.deepEqual(
        desc.json().results.map((n: { id: number }) => n.id),
        [...ids].reverse(),
      );
      for (const limit of ['0', '101']) {
        const response = await env.call('GET', '/v1/networks', { token, query: { limit } });
        assert.equal(response.statusCode, 400, limit);
      }
    });
  });

  describe('edit', () => {
    async function edit(id: number, body: unknown, as = token) {
      return env.call('PATCH', `/v1/networks/${id}`, { token: as, body });
    }

    it('checks the chain id when a disabled network is enabled: 400 naming both ids, 502 when it does not answer', async () => {
      const created = await create(networkBody(4010, otherChain.rpcUrl, { enabled: false }));
      assert.equal(created.statusCode, 201, created.body);
      const mismatch = await edit(4010, { enabled: true });
      assertFields(mismatch, ['/config/url', '/enabled']);
      assert.match(mismatch.json().error.detail, /1337/);
      assert.match(mismatch.json().error.detail, /4010/);
      assert.equal((await storedNetwork(4010))?.enabled, false);
      // While disabled, a url change is not checked either; enabling checks the new one.
      const dead = await edit(4010, { config: { url: await deadNodeUrl() } });
      assert.equal(dead.statusCode, 200, dead.body);
      assertError(await edit(4010, { enabled: true }), 502, 'UPSTREAM_FAILED');
      const node = await startNode(4010);
      const enabled = await edit(4010, { enabled: true, config: { url: node.rpcUrl } });
      assert.equal(enabled.statusCode, 200, enabled.body);
      assert.equal(enabled.json().enabled, true);
    });

    it('changes name, enabled and testnet; null or absent leaves each as it is', async () => {
      const { network } = await freshNetwork(4001, { name: 'Before', enabled: true, testnet: true });
      const renamed = await edit(4001, { name: 'After', enabled: null, testnet: null, config: null });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.deepEqual(renamed.json(), { ...network, name: 'After' });
      const flipped = await edit(4001, { enabled: false, testnet: false });
      assert.equal(flipped.statusCode, 200, flipped.body);
      assert.deepEqual(flipped.json(), { ...network, name: 'After', enabled: false, testnet: false });
      const row = await storedNetwork(4001);
      assert.deepEqual(
        { name: row?.name, enabled: row?.enabled, testnet: row?.testnet },
        { name: 'After', enabled: false, testnet: false },
      );
      const unchanged = await edit(4001, {});
      assert.deepEqual(unchanged.json(), flipped.json());
    });

    it('merges config field by field, gasStrategy included', async () => {
      await freshNetwork(4002);
      const set = await edit(4002, {
        config: { confirmations: 3, gasStrategy: { type: 'EIP1559', maxFeePerGas: '900' } },
      });
      assert.equal(set.statusCode, 200, set.body);
      const network = set.json();
      assert.equal(network.config.confirmations, 3);
      const response = await edit(4002, {
        config: { poa: true, txResubmitBlockCount: null, gasStrategy: { bumpPercent: 20 } },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().config, {
        ...network.config,
        poa: true,
        txResubmitBlockCount: null,
        gasStrategy: { ...network.config.gasStrategy, bumpPercent: 20 },
      });
      assert.equal(response.json().config.gasStrategy.type, 'EIP1559');
      assert.equal(response.json().config.gasStrategy.maxFeePerGas, '900');
      assert.deepEqual((await storedNetwork(4002))?.config, response.json().config);
      const unbounded = await edit(4002, { config: { gasStrategy: { maxFeePerGas: null } } });
      assert.equal(unbounded.json().config.gasStrategy.maxFeePerGas, null);
    });

    it('moves to another node of the same chain', async () => {
      const { node } = await freshNetwork(4003);
      const otherNode = await startNode(4003);
      const moved = await edit(4003, { config: { url: otherNode.rpcUrl } });
      assert.equal(moved.statusCode, 200, moved.body);
      assert.equal(moved.json().config.url, otherNode.rpcUrl);
      assert.equal((await storedNetwork(4003))?.config.url, otherNode.rpcUrl);
      const back = await edit(4003, { config: { url: node.rpcUrl } });
      assert.equal(back.statusCode, 200, back.body);
      assert.equal(back.json().config.url, node.rpcUrl);
    });

    it('refuses a url on another chain (400 /config/url) and one that does not answer (502), changing nothing', async () => {
      const { node, network } = await freshNetwork(4004);
      const wrongChain = await edit(4004, { name: 'Renamed', config: { url: otherChain.rpcUrl, poa: true } });
      assertFields(wrongChain, ['/config/url']);
      const dead = await edit(4004, { name: 'Renamed', config: { url: await deadNodeUrl() } });
      assertError(dead, 502, 'UPSTREAM_FAILED');
      const row = await storedNetwork(4004);
      assert.equal(row?.name, network.name);
      assert.deepEqual(row?.config, network.config);
      assert.equal(row?.config.url, node.rpcUrl);
    });

    it('does not call the node when the url stays the same', async () => {
      const { node } = await freshNetwork(4005);
      await node.stop();
      const response = await edit(4005, { config: { url: node.rpcUrl, confirmations: 2 } });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().config.confirmations, 2);
    });

    it('rejects invalid edits with 400 and changes nothing', async () => {
      const { network } = await freshNetwork(4006);
      const cases: unknown[] = [
        { config: { confirmations: 0 } },
        { config: { eip155: null } },
        { config: { url: null } },
        { config: { unknown: 1 } },
        { config: { gasStrategy: { type: 'FAST' } } },
        { config: { gasStrategy: { bumpPercent: 5 } } },
        { config: { gasStrategy: null } },
        { config: { gasStrategy: { maxFeePerGas: '10', maxPriorityFeePerGas: '20' } } },
        { name: '' },
        { enabled: 'no' },
        { id: 5 },
        { config: { autoFundAmount: TWO_TO_256 } },
        { config: { gasStrategy: { maxFeePerGas: TWO_TO_256 } } },
        { config: { gasStrategy: { maxPriorityFeePerGas: TWO_TO_256, maxFeePerGas: TWO_TO_256 } } },
      ];
      for (const body of cases) {
        const response = await edit(4006, body);
        assertError(response, 400, 'VALIDATION_FAILED');
      }
      // Priority above an existing cap is refused too (the rule holds on the merged config).
      await edit(4006, { config: { gasStrategy: { maxFeePerGas: '100' } } });
      assertFields(await edit(4006, { config: { gasStrategy: { maxPriorityFeePerGas: '101' } } }), [
        '/config/gasStrategy/maxPriorityFeePerGas',
      ]);
      const row = await storedNetwork(4006);
      assert.deepEqual(row?.config, {
        ...network.config,
        gasStrategy: { ...network.config.gasStrategy, maxFeePerGas: '100' },
      });
    });

    it('answers 404 for an unknown network and 403 to organization admins', async () => {
      const unknown = await edit(999998, { name: 'x' });
      assertError(unknown, 404, 'NOT_FOUND');
      await freshNetwork(4007, { name: 'Kept' });
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const response = await edit(4007, { name: 'Taken over' }, admin.token);
      assertError(response, 403, 'FORBIDDEN');
      assert.equal((await storedNetwork(4007))?.name, 'Kept');
    });
  });
});
