import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Address, getAddress } from 'viem';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { deployBytecode, deployErc20, networkBody, useNodes } from '../../../../../test/support/networks.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import type { DevChain } from '../../../../chain/dev-chain.ts';

/** Payment tokens, with symbol and decimals read from the chain. */
describe('payment tokens', () => {
  let env: TestEnv;
  let token: string;
  let node: DevChain;
  const startNode = useNodes();
  const NETWORK_ID = 31337;
  const url = `/v1/networks/${NETWORK_ID}/payment-tokens`;

  before(async () => {
    env = await setupTest();
    token = env.platformAdmin.token;
    node = await startNode(NETWORK_ID);
    const created = await env.call('POST', '/v1/networks', {
      token,
      body: networkBody(NETWORK_ID, node.rpcUrl),
    });
    assert.equal(created.statusCode, 201, created.body);
  });
  after(() => env.close());

  async function add(body: unknown, networkUrl = url) {
    return env.call('POST', networkUrl, { token, body });
  }

  async function storedTokens(networkId = NETWORK_ID) {
    return env.database.db
      .selectFrom('payment_tokens')
      .selectAll()
      .where('network_id', '=', networkId)
      .orderBy('address')
      .execute();
  }

  /** A mixed-case address with one letter's case flipped: a wrong EIP-55 checksum. */
  function wrongChecksum(address: Address): string {
    const checksummed = getAddress(address);
    const i = [...checksummed].findIndex((c, index) => index > 1 && /[a-fA-F]/.test(c));
    const c = checksummed[i]!;
    const flipped = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
    return checksummed.slice(0, i) + flipped + checksummed.slice(i + 1);
  }

  describe('add', () => {
    it('reads symbol and decimals from the chain and returns the token checksummed (201)', async () => {
      const address = await deployErc20(node, { symbol: 'TUSD', decimals: 6 });
      const response = await add({ address: address.toLowerCase(), usd_stablecoin: true });
      assert.equal(response.statusCode, 201, response.body);
      assert.deepEqual(response.json(), {
        address: getAddress(address),
        symbol: 'TUSD',
        decimals: 6,
        network_id: NETWORK_ID,
        eth: false,
        eur_stablecoin: false,
        usd_stablecoin: true,
      });
      const stored = (await storedTokens()).find((t) => t.address === getAddress(address));
      assert.equal(stored?.symbol, 'TUSD');
      assert.equal(stored?.decimals, 6);
    });

    it('defaults eth, eur_stablecoin and usd_stablecoin to false, and takes each when given', async () => {
      const plain = await deployErc20(node, { symbol: 'PLN', decimals: 18 });
      const response = await add({ address: plain });
      assert.equal(response.statusCode, 201, response.body);
      assert.deepEqual(
        {
          eth: response.json().eth,
          eur: response.json().eur_stablecoin,
          usd: response.json().usd_stablecoin,
        },
        { eth: false, eur: false, usd: false },
      );
      const weth = await deployErc20(node, { symbol: 'WETH', decimals: 18 });
      const flagged = await add({ address: weth, eth: true, eur_stablecoin: true, usd_stablecoin: false });
      assert.equal(flagged.statusCode, 201, flagged.body);
      assert.equal(flagged.json().eth, true);
      assert.equal(flagged.json().eur_stablecoin, true);
      assert.equal(flagged.json().decimals, 18);
    });

    it('accepts an address in any uniform case or checksummed', async () => {
      for (const [i, form] of (['upper', 'checksummed'] as const).entries()) {
        const address = await deployErc20(node, { symbol: `CASE${i}`, decimals: 8 });
        const input = form === 'upper' ? `0x${address.slice(2).toUpperCase()}` : getAddress(address);
        const response = await add({ address: input });
        assert.equal(response.statusCode, 201, `${form}: ${response.body}`);
        assert.equal(response.json().address, getAddress(address));
      }
    });

    it('rejects a mixed-case address with a wrong EIP-55 checksum (400 /address)', async () => {
      const address = await deployErc20(node, { symbol: 'BADSUM', decimals: 2 });
      const response = await add({ address: wrongChecksum(address) });
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        response.json().error.fields.map((f: { path: string }) => f.path),
        ['/address'],
      );
      assert.equal(
        (await storedTokens()).find((t) => t.address === getAddress(address)),
        undefined,
      );
    });

    it('refuses an address that is not an ERC-20 (400 /address): an account, an ERC-721', async () => {
      const nft = await deployBytecode(node, platformContracts.FlexibleERC721, [
        'Not a token',
        'NFT',
        'http://tokens.test/',
        'http://tokens.test/contract',
        node.accounts[0]!.address,
        0n,
        node.accounts[0]!.address,
        0,
      ]);
      for (const address of [node.accounts[1]!.address, nft, '0x000000000000000000000000000000000000dead']) {
        const response = await add({ address });
        assertError(response, 400, 'VALIDATION_FAILED');
        assert.deepEqual(
          response.json().error.fields.map((f: { path: string }) => f.path),
          ['/address'],
        );
      }
      const stored = (await storedTokens()).map((t) => t.address);
      assert.ok(!stored.includes(getAddress(nft)));
    });

    it('refuses a token whose symbol is empty (400 /address)', async () => {
      const address = await deployErc20(node, { symbol: '', decimals: 18 });
      const response = await add({ address });
      assert.equal(response.statusCode, 400, response.body);
      assert.deepEqual(
        response.json().error.fields.map((f: { path: string }) => f.path),
        ['/address'],
      );
    });

    it('answers 409 ALREADY_EXISTS for a token already added, in whatever case', async () => {
      const address = await deployErc20(node, { symbol: 'DUP', decimals: 18 });
      assert.equal((await add({ address })).statusCode, 201);
      for (const again of [address, getAddress(address), `0x${address.slice(2).toUpperCase()}`]) {
        const response = await add({ address: again, eth: true });
        assertError(response, 409, 'ALREADY_EXISTS');
      }
      const stored = (await storedTokens()).filter((t) => t.address === getAddress(address));
      assert.equal(stored.length, 1);
      assert.equal(stored[0]?.eth, false);
    });

    it('answers 409 ALREADY_EXISTS for a second token with the same symbol, in any case', async () => {
      const first = await deployErc20(node, { symbol: 'SAME', decimals: 18 });
      const second = await deployErc20(node, { symbol: 'same', decimals: 6 });
      assert.equal((await add({ address: first })).statusCode, 201);
      const response = await add({ address: second });
      assertError(response, 409, 'ALREADY_EXISTS');
      assert.match(response.json().error.detail, /symbol/);
    });

    it('answers 404 for an unknown network, and 502 when the network’s node does not answer', async () => {
      const address = await deployErc20(node, { symbol: 'NODE', decimals: 18 });
      const unknown = await add({ address }, '/v1/networks/424242/payment-tokens');
      assertError(unknown, 404, 'NOT_FOUND');

      const downNode = await startNode(5151);
      const created = await env.call('POST', '/v1/networks', {
        token,
        body: networkBody(5151, downNode.rpcUrl),
      });
      assert.equal(created.statusCode, 201, created.body);
      const tokenOnDown = await deployErc20(downNode, { symbol: 'DOWN', decimals: 18 });
      await downNode.stop();
      const response = await add({ address: tokenOnDown }, '/v1/networks/5151/payment-tokens');
      assertError(response, 502, 'UPSTREAM_FAILED');
      assert.deepEqual(await storedTokens(5151), []);
    });

    it('rejects invalid bodies with 400', async () => {
      const address = await deployErc20(node, { symbol: 'BODY', decimals: 18 });
      const cases: unknown[] = [
        {},
        { address: '0x1234' },
        { address: address.slice(2) },
        { address, eth: 'yes' },
        { address, symbol: 'FAKE' },
        { address, decimals: 2 },
      ];
      for (const body of cases) {
        const response = await add(body);
        assertError(response, 400, 'VALIDATION_FAILED');
      }
      assert.equal(
        (await storedTokens()).find((t) => t.address === getAddress(address)),
        undefined,
      );
    });

    it('is for platform admins only (403 to organization admins)', async () => {
      const address = await deployErc20(node, { symbol: 'ORGX', decimals: 18 });
      const org = await env.createOrganization();
      const admin = await env.createUser(org.id, 'ORG_ADMIN');
      const response = await env.call('POST', url, { token: admin.token, body: { address } });
      assertError(response, 403, 'FORBIDDEN');
    });

    it('shows added tokens in the network’s payment_tokens', async () => {
      const address = await deployErc20(node, { symbol: 'SHOWN', decimals: 4 });
      const added = await add({ address });
      assert.equal(added.statusCode, 201, added.body);
      const network = await env.call('GET', `/v1/networks/${NETWORK_ID}`, { token });
      assert.ok(
        network
          .json()
          .payment_tokens.some((t: unknown) => JSON.stringify(t) === JSON.stringify(added.json())),
      );
      const list = await env.call('GET', '/v1/networks', { token });
      const listed = list.json().results.find((n: { id: number }) => n.id === NETWORK_ID);
      assert.deepEqual(listed.payment_tokens, network.json().payment_tokens);
    });
  });

  describe('list', () => {
    it('pages through the tokens of one network by address, for any authenticated user', async () => {
      const listNode = await startNode(6161);
      const created = await env.call('POST', '/v1/networks', {
        token,
        body: networkBody(6161, listNode.rpcUrl),
      });
      assert.equal(created.statusCode, 201, created.body);
      const addresses: string[] = [];
      for (let i = 0; i < 5; i++) {
        const address = await deployErc20(listNode, { symbol: `L${i}`, decimals: i });
        const response = await add({ address }, '/v1/networks/6161/payment-tokens');
        assert.equal(response.statusCode, 201, response.body);
        addresses.push(getAddress(address));
      }
      const org = await env.createOrganization();
      const member = await env.createUser(org.id, 'ORG_MEMBER');
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: Record<string, string> = { limit: '2', ...(cursor && { cursor }) };
        const page = await env.call('GET', '/v1/networks/6161/payment-tokens', {
          token: member.token,
          query,
        });
        assert.equal(page.statusCode, 200, page.body);
        assert.equal(page.json().total_results, 5);
        for (const t of page.json().results) assert.equal(t.network_id, 6161);
        seen.push(...page.json().results.map((t: { address: string }) => t.address));
        cursor = page.json().cursor;
      } while (cursor !== null);
      // Every token once; the order is the database's collation of the address text.
      assert.deepEqual([...seen].sort(), [...addresses].sort());
      assert.equal(new Set(seen).size, seen.length);
      const network = await env.call('GET', '/v1/networks/6161', { token: member.token });
      assert.deepEqual(
        network.json().payment_tokens.map((t: { address: string }) => t.address),
        seen,
      );
    });

    it('answers 404 for an unknown network', async () => {
      const response = await env.call('GET', '/v1/networks/434343/payment-tokens', { token });
      assertError(response, 404, 'NOT_FOUND');
    });
  });

  describe('on network create', () => {
    it('adds the payment_tokens given, read from the new network’s chain', async () => {
      const chain = await startNode(7171);
      const usd = await deployErc20(chain, { symbol: 'CUSD', decimals: 6 });
      const eur = await deployErc20(chain, { symbol: 'CEUR', decimals: 2 });
      const response = await env.call('POST', '/v1/networks', {
        token,
        body: networkBody(7171, chain.rpcUrl, {
          payment_tokens: [
            { address: usd, usd_stablecoin: true },
            { address: getAddress(eur), eur_stablecoin: true },
          ],
        }),
      });
      assert.equal(response.statusCode, 201, response.body);
      const tokens = response.json().payment_tokens as { address: string; symbol: string }[];
      const bySymbol = Object.fromEntries(tokens.map((t) => [t.symbol, t]));
      assert.deepEqual(bySymbol.CUSD, {
        address: getAddress(usd),
        symbol: 'CUSD',
        decimals: 6,
        network_id: 7171,
        eth: false,
        eur_stablecoin: false,
        usd_stablecoin: true,
      });
      assert.equal((bySymbol.CEUR as unknown as { decimals: number }).decimals, 2);
      assert.equal((await storedTokens(7171)).length, 2);
    });

    it('accepts payment_tokens null', async () => {
      const chain = await startNode(7172);
      const response = await env.call('POST', '/v1/networks', {
        token,
        body: networkBody(7172, chain.rpcUrl, { payment_tokens: null }),
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.deepEqual(response.json().payment_tokens, []);
    });

    it('creates nothing when one token is not an ERC-20, naming it (400 /payment_tokens/1/address)', async () => {
      const chain = await startNode(7173);
      const good = await deployErc20(chain, { symbol: 'GOOD', decimals: 18 });
      const response = await env.call('POST', '/v1/networks', {
        token,
        body: networkBody(7173, chain.rpcUrl, {
          payment_tokens: [{ address: good }, { address: chain.accounts[2]!.address }],
        }),
      });
      assert.equal(response.statusCode, 400, response.body);
      assert.deepEqual(
        response.json().error.fields.map((f: { path: string }) => f.path),
        ['/payment_tokens/1/address'],
      );
      const stored = await env.database.db
        .selectFrom('networks')
        .select('id')
        .where('id', '=', 7173)
        .execute();
      assert.deepEqual(stored, []);
      assert.deepEqual(await storedTokens(7173), []);
    });

    it('refuses the same token twice (400), a wrong checksum (400) and a shared symbol (409), creating nothing', async () => {
      const chain = await startNode(7174);
      const a = await deployErc20(chain, { symbol: 'AAA', decimals: 18 });
      const b = await deployErc20(chain, { symbol: 'aaa', decimals: 18 });
      const cases: [unknown[], number, string[] | undefined][] = [
        [[{ address: a }, { address: getAddress(a) }], 400, ['/payment_tokens/1/address']],
        [[{ address: wrongChecksum(b) }], 400, ['/payment_tokens/0/address']],
        [[{ address: a }, { address: b }], 409, undefined],
      ];
      for (const [paymentTokens, status, paths] of cases) {
        const response = await env.call('POST', '/v1/networks', {
          token,
          body: networkBody(7174, chain.rpcUrl, { payment_tokens: paymentTokens }),
        });
        assert.equal(response.statusCode, status, response.body);
        if (paths) {
          assert.deepEqual(
            response.json().error.fields.map((f: { path: string }) => f.path),
            paths,
          );
        }
      }
      const stored = await env.database.db
        .selectFrom('networks')
        .select('id')
        .where('id', '=', 7174)
        .execute();
      assert.deepEqual(stored, []);
      assert.deepEqual(await storedTokens(7174), []);
    });
  });
});
