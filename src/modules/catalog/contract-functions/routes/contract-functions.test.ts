import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeFunctionData, toFunctionSelector } from 'viem';
import { assertError, assertFields } from '../../../../../test/assertions.ts';
import { insertCollection, organizationWallet } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import type { CollectionRow } from '../../../../db/schema.ts';

const ABI = platformContracts.FlexibleERC721.abi;
const FUNCTION_COUNT = ABI.filter((e) => e.type === 'function').length;
/** A contract address no node serves: calls to it reach the dead node of network 31337. */
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const HOLDER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

const id = (signature: string) => toFunctionSelector(signature).slice(2);
const BALANCE_OF = id('balanceOf(address)');
const SET_BASE_URI = id('setBaseURI(string)');
const MINT = id('mint(address,uint256)');

/** Contract functions, read from the collection's ABI (no chain: the node is dead). */
describe('contract functions', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  let member: Actor;
  let stranger: Actor;
  let collection: CollectionRow;

  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    ({ organizationId, admin, member, stranger } = await env.createTenant());
    collection = await deployedCollection();
  });
  after(() => env.close());

  function deployedCollection(fields: { functionsEnabled?: boolean } = {}) {
    return insertCollection(env.database.db, {
      organizationId,
      abi: [...ABI],
      contractAddress: CONTRACT,
      capabilities: ['ERC721'],
    }).then(async (row) => {
      if (fields.functionsEnabled) {
        await env.database.db
          .updateTable('collections')
          .set({ functions_enabled: true })
          .where('id', '=', row.id)
          .execute();
      }
      return row;
    });
  }

  const base = (c: { id: string } = collection) => `/v1/collections/${c.id}/functions`;

  describe('list and get', () => {
    it('lists every function of the ABI by selector id, ordered, disabled by default, with its fragment', async () => {
      const response = await env.call('GET', base(), { token: member.token });
      assert.equal(response.statusCode, 200, response.body);
      const page = response.json();
      assert.equal(page.total_results, FUNCTION_COUNT);
      assert.equal(page.results.length, FUNCTION_COUNT);
      assert.equal(page.has_more, false);
      assert.equal(page.cursor, null);
      const ids = page.results.map((f: { id: string }) => f.id);
      assert.deepEqual(ids, [...ids].sort());
      for (const f of page.results) {
        assert.match(f.id, /^[0-9a-f]{8}$/);
        assert.equal(f.enabled, false);
        assert.equal(f.abi.type, 'function');
        assert.equal(
          id(`${f.abi.name}(${f.abi.inputs.map((i: { type: string }) => i.type).join(',')})`),
          f.id,
        );
      }
      const balanceOf = page.results.find((f: { id: string }) => f.id === BALANCE_OF);
      assert.deepEqual(
        balanceOf.abi,
        ABI.find((e) => e.type === 'function' && e.name === 'balanceOf'),
      );
    });

    it('gives overloads distinct ids (safeTransferFrom with and without data)', async () => {
      const page = (await env.call('GET', base(), { token: admin.token })).json();
      const overloads = page.results.filter(
        (f: { abi: { name: string } }) => f.abi.name === 'safeTransferFrom',
      );
      assert.deepEqual(overloads.map((f: { id: string }) => f.id).sort(), ['42842e0e', 'b88d4fde']);
    });

    it('pages with cursors in both directions without repeating or skipping', async () => {
      const all = (await env.call('GET', base(), { token: admin.token }))
        .json()
        .results.map((f: { id: string }) => f.id);
      for (const direction of ['ASC', 'DESC'] as const) {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const query: Record<string, string> = { limit: '7', order_direction: direction };
          if (cursor) query.cursor = cursor;
          const page = (await env.call('GET', base(), { token: admin.token, query })).json();
          assert.ok(page.results.length <= 7);
          seen.push(...page.results.map((f: { id: string }) => f.id));
          cursor = page.cursor ?? undefined;
        } while (cursor);
        assert.deepEqual(seen, direction === 'ASC' ? all : [...all].reverse());
      }
      assertError(
        await env.call('GET', base(), { token: admin.token, query: { limit: '101' } }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('refuses a cursor of another collection', async () => {
      const other = await deployedCollection();
      const page = (await env.call('GET', base(), { token: admin.token, query: { limit: '2' } })).json();
      assertError(
        await env.call('GET', base(other), {
          token: admin.token,
          query: { limit: '2', cursor: page.cursor },
        }),
        400,
        'INVALID_CURSOR',
      );
    });

    it('lists nothing for a collection without an ABI yet (not deployed)', async () => {
      const undeployed = await insertCollection(env.database.db, { organizationId, abi: null });
      const response = await env.call('GET', base(undeployed), { token: admin.token });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { results: [], cursor: null, has_more: false, total_results: 0 });
    });

    it('gets one function by id in either case and answers it lowercase', async () => {
      const response = await env.call('GET', `${base()}/${BALANCE_OF.toUpperCase()}`, {
        token: member.token,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().id, BALANCE_OF);
      assert.equal(response.json().abi.name, 'balanceOf');
      assert.equal(response.json().enabled, false);
    });

    it('answers 404 for a selector not in the ABI and 400 for an id that is not 8 hex digits', async () => {
      assertError(await env.call('GET', `${base()}/deadbeef`, { token: admin.token }), 404, 'NOT_FOUND');
      for (const bad of ['70a0823', '70a082311', '0x70a08231', 'zzzzzzzz']) {
        assertError(
          await env.call('GET', `${base()}/${bad}`, { token: admin.token }),
          400,
          'VALIDATION_FAILED',
        );
      }
    });

    it("answers 404 for another organization's collection and an unknown one", async () => {
      assertError(await env.call('GET', base(), { token: stranger.token }), 404, 'NOT_FOUND');
      assertError(
        await env.call('GET', `${base()}/${BALANCE_OF}`, { token: stranger.token }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await env.call('GET', '/v1/collections/0190a0a0-0000-7000-8000-000000000000/functions', {
          token: admin.token,
        }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('enable and disable', () => {
    it('switches a function on and off, persisted and seen by list and get', async () => {
      const own = await deployedCollection();
      const on = await env.call('PATCH', `${base(own)}/${SET_BASE_URI.toUpperCase()}`, {
        token: admin.token,
        body: { enabled: true },
      });
      assert.equal(on.statusCode, 200, on.body);
      assert.equal(on.json().contract_func.id, SET_BASE_URI);
      assert.equal(on.json().contract_func.enabled, true);
      assert.equal(on.json().contract_func.abi.name, 'setBaseURI');
      const stored = await env.database.db
        .selectFrom('collection_functions')
        .selectAll()
        .where('collection_id', '=', own.id)
        .execute();
      assert.deepEqual(
        stored.map((r) => [r.selector, r.enabled]),
        [[SET_BASE_URI, true]],
      );
      assert.equal(
        (await env.call('GET', `${base(own)}/${SET_BASE_URI}`, { token: admin.token })).json().enabled,
        true,
      );
      const listed = (await env.call('GET', base(own), { token: admin.token })).json().results;
      assert.deepEqual(
        listed.filter((f: { enabled: boolean }) => f.enabled).map((f: { id: string }) => f.id),
        [SET_BASE_URI],
      );

      const off = await env.call('PATCH', `${base(own)}/${SET_BASE_URI}`, {
        token: admin.token,
        body: { enabled: false },
      });
      assert.equal(off.statusCode, 200, off.body);
      assert.equal(off.json().contract_func.enabled, false);
      assert.equal(
        (await env.call('GET', `${base(own)}/${SET_BASE_URI}`, { token: admin.token })).json().enabled,
        false,
      );
    });

    it('refuses a body without enabled, with another type or with unknown fields (400)', async () => {
      for (const body of [{}, { enabled: 'yes' }, { enabled: true, extra: 1 }]) {
        assertError(
          await env.call('PATCH', `${base()}/${SET_BASE_URI}`, { token: admin.token, body }),
          400,
          'VALIDATION_FAILED',
        );
      }
    });

    it("answers 404 for a function not in the ABI and for another organization's collection", async () => {
      assertError(
        await env.call('PATCH', `${base()}/deadbeef`, { token: admin.token, body: { enabled: true } }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await env.call('PATCH', `${base()}/${SET_BASE_URI}`, {
          token: stranger.token,
          body: { enabled: true },
        }),
        404,
        'NOT_FOUND',
      );
    });

    it('is refused to an ORG_MEMBER (collections:write)', async () => {
      assertError(
        await env.call('PATCH', `${base()}/${SET_BASE_URI}`, {
          token: member.token,
          body: { enabled: true },
        }),
        403,
        'FORBIDDEN',
      );
    });
  });

  describe('call', () => {
    const call = (path: string, body: unknown, token = member.token) =>
      env.call('POST', `${base()}/${path}/call`, { token, body });

    it('refuses functions that are not view or pure (400)', async () => {
      const response = await call(SET_BASE_URI, { arguments: ['https://x.test/'] });
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.match(response.json().error.detail, /setBaseURI\(string\).*nonpayable.*view and pure/);
    });

    it('checks the arguments against the ABI inputs, with field paths (400)', async () => {
      assertFields(await call(BALANCE_OF, { arguments: ['0x123'] }), ['/arguments/0']);
      assertFields(await call(BALANCE_OF, { arguments: [] }), ['/arguments']);
      assertFields(await call(BALANCE_OF, { arguments: null }), ['/arguments']);
      assertFields(await call(BALANCE_OF, { arguments: [HOLDER, 1] }), ['/arguments']);
      const royalty = id('royaltyInfo(uint256,uint256)');
      assertFields(await call(royalty, { arguments: ['-1', 'ten'] }), ['/arguments/0', '/arguments/1']);
    });

    it('requires the arguments field and refuses unknown fields (400)', async () => {
      assertFields(await call(BALANCE_OF, {}), ['/arguments']);
      assertFields(await call(BALANCE_OF, { arguments: [HOLDER], value: '1' }), ['/value']);
      assertError(await call(BALANCE_OF, { arguments: 'x' }), 400, 'VALIDATION_FAILED');
    });

    it('answers 409 INVALID_STATE while the collection has no deployed contract', async () => {
      const pending = await insertCollection(env.database.db, { organizationId, abi: [...ABI] });
      const response = await env.call('POST', `${base(pending)}/${BALANCE_OF}/call`, {
        token: admin.token,
        body: { arguments: [HOLDER] },
      });
      assertError(response, 409, 'INVALID_STATE');
      assert.match(response.json().error.detail, /no deployed contract/);
    });

    it('answers 502 UPSTREAM_FAILED when the network node does not answer', async () => {
      const response = await call(BALANCE_OF, { arguments: [HOLDER] });
      assertError(response, 502, 'UPSTREAM_FAILED');
    });

    it("answers 404 for another organization's collection and a selector not in the ABI", async () => {
      assertError(await call(BALANCE_OF, { arguments: [HOLDER] }, stranger.token), 404, 'NOT_FOUND');
      assertError(await call('deadbeef', { arguments: null }), 404, 'NOT_FOUND');
    });
  });

  describe('execute', () => {
    const execute = (c: { id: string }, path: string, body: unknown, token = admin.token) =>
      env.call('POST', `${base(c)}/${path}/execute`, { token, body });
    const enable = (c: { id: string }, path: string) =>
      env.call('PATCH', `${base(c)}/${path}`, { token: admin.token, body: { enabled: true } });

    it("is refused while the collection's functions_enabled is false, even for an enabled function (409)", async () => {
      const own = await deployedCollection();
      await enable(own, MINT);
      const response = await execute(own, MINT, { arguments: [HOLDER, '1'] });
      assertError(response, 409, 'INVALID_STATE');
      assert.match(response.json().error.detail, /functions_enabled/);
    });

    it('is refused while the function is not enabled, or was disabled again (409)', async () => {
      const own = await deployedCollection({ functionsEnabled: true });
      const never = await execute(own, MINT, { arguments: [HOLDER, '1'] });
      assertError(never, 409, 'INVALID_STATE');
      assert.match(
        never.json().error.detail,
        new RegExp(`mint\\(address,uint256\\) \\(${MINT}\\) is not enabled`),
      );
      await enable(own, MINT);
      await env.call('PATCH', `${base(own)}/${MINT}`, { token: admin.token, body: { enabled: false } });
      assertError(await execute(own, MINT, { arguments: [HOLDER, '1'] }), 409, 'INVALID_STATE');
    });

    it('refuses view functions (400), even when enabled', async () => {
      const own = await deployedCollection({ functionsEnabled: true });
      await enable(own, BALANCE_OF);
      const response = await execute(own, BALANCE_OF, { arguments: [HOLDER] });
      assertError(response, 400, 'VALIDATION_FAILED');
      assert.match(response.json().error.detail, /use call/);
    });

    it('answers 409 while the collection has no deployed contract', async () => {
      const pending = await insertCollection(env.database.db, { organizationId, abi: [...ABI] });
      await env.database.db
        .updateTable('collections')
        .set({ functions_enabled: true })
        .where('id', '=', pending.id)
        .execute();
      await enable(pending, MINT);
      const response = await execute(pending, MINT, { arguments: [HOLDER, '1'] });
      assertError(response, 409, 'INVALID_STATE');
      assert.match(response.json().error.detail, /no deployed contract/);
    });

    it('refuses arguments that do not match the ABI, with field paths (400), queueing nothing', async () => {
      const own = await deployedCollection({ functionsEnabled: true });
      await enable(own, MINT);
      assertFields(await execute(own, MINT, { arguments: ['0xnot', '1.5'] }), [
        '/arguments/0',
        '/arguments/1',
      ]);
      assertFields(await execute(own, MINT, { arguments: null }), ['/arguments']);
      const queued = await env.database.db
        .selectFrom('transactions')
        .select('id')
        .where('type', '=', 'FUNCTION_EXECUTE')
        .where('to_address', '=', CONTRACT)
        .where('organization_id', '=', organizationId)
        .execute();
      assert.equal(queued.length, 0);
    });

    it("queues a FUNCTION_EXECUTE transaction from the organization's wallet with the encoded call (201)", async () => {
      const own = await deployedCollection({ functionsEnabled: true });
      await enable(own, MINT);
      const response = await execute(own, MINT, { arguments: [HOLDER.toLowerCase(), '42'] });
      assert.equal(response.statusCode, 201, response.body);
      const transactionId = response.json().transaction_id as string;
      const row = await env.database.db
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', transactionId)
        .executeTakeFirstOrThrow();
      const wallet = await organizationWallet(env.database.db, organizationId);
      assert.equal(row.type, 'FUNCTION_EXECUTE');
      assert.equal(row.state, 'PENDING');
      assert.equal(row.network_id, 31337);
      assert.equal(row.wallet_id, wallet.id);
      assert.equal(row.organization_id, organizationId);
      assert.equal(row.to_address, CONTRACT);
      assert.equal(row.value, '0');
      const decoded = decodeFunctionData({ abi: ABI, data: row.data as `0x${string}` });
      assert.equal(decoded.functionName, 'mint');
      assert.deepEqual(decoded.args, [HOLDER, 42n]);
      const seen = await env.call('GET', `/v1/transactions/${transactionId}`, { token: member.token });
      assert.equal(seen.statusCode, 200, seen.body);
    });

    it("is refused to an ORG_MEMBER (403) and answers 404 for another organization's collection", async () => {
      const own = await deployedCollection({ functionsEnabled: true });
      await enable(own, MINT);
      assertError(await execute(own, MINT, { arguments: [HOLDER, '1'] }, member.token), 403, 'FORBIDDEN');
      assertError(await execute(own, MINT, { arguments: [HOLDER, '1'] }, stranger.token), 404, 'NOT_FOUND');
    });
  });
});
