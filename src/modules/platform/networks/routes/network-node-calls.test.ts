import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type GateProxy, startGateProxy } from '../../../../../test/chain/gate-proxy.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { deployErc20, networkBody, useNodes } from '../../../../../test/support/networks.ts';

const CHAIN_ID = 424242;

/**
 * What a network's edit and a payment token's addition ask its node (its chain id, an ERC-20's
 * symbol and decimals) is asked with the network's row unlocked: a slow node holds up the admin
 * who waits on it, not the relayer, the sales or another edit that need the row.
 */
describe("a network's node is asked with the network's row unlocked", () => {
  let env: TestEnv;
  let gate: GateProxy;
  let node: Awaited<ReturnType<ReturnType<typeof useNodes>>>;
  const startNode = useNodes();
  before(async () => {
    env = await setupTest();
    node = await startNode(CHAIN_ID);
    gate = await startGateProxy(node.rpcUrl);
    const created = await env.call('POST', '/v1/networks', {
      token: env.platformAdmin.token,
      body: networkBody(CHAIN_ID, gate.url),
    });
    assert.equal(created.statusCode, 201, created.body);
  });
  after(async () => {
    await gate?.stop();
    await env?.close();
  });

  /** Whether the network's row can be locked now, without waiting. */
  const rowIsFree = () =>
    env.database.db.transaction().execute(async (tx) => {
      try {
        await sql`SELECT id FROM networks WHERE id = ${CHAIN_ID} FOR UPDATE NOWAIT`.execute(tx);
        return true;
      } catch {
        return false;
      }
    });
  const waitHeld = async (method: string) => {
    for (const deadline = Date.now() + 30_000; !gate.held.some((call) => call.method === method); ) {
      if (Date.now() > deadline) throw new Error(`no ${method} reached the node`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('checks a new url with nothing locked, then edits', async () => {
    gate.close((call) => call.method === 'eth_chainId');
    const edit = env.call('PATCH', `/v1/networks/${CHAIN_ID}`, {
      token: env.platformAdmin.token,
      body: { config: { url: `${gate.url}/` } },
    });
    await waitHeld('eth_chainId');
    assert.equal(await rowIsFree(), true);
    gate.open();
    const edited = await edit;
    assert.equal(edited.statusCode, 200, edited.body);
    assert.equal(edited.json().config.url, `${gate.url}/`);
  });

  it("reads a payment token's symbol and decimals with nothing locked, then adds it", async () => {
    const token = await deployErc20(node, { symbol: 'USDT', decimals: 6 });
    gate.close((call) => call.method === 'eth_call');
    const added = env.call('POST', `/v1/networks/${CHAIN_ID}/payment-tokens`, {
      token: env.platformAdmin.token,
      body: { address: token },
    });
    await waitHeld('eth_call');
    assert.equal(await rowIsFree(), true);
    gate.open();
    const answer = await added;
    assert.equal(answer.statusCode, 201, answer.body);
    assert.deepEqual([answer.json().symbol, answer.json().decimals], ['USDT', 6]);
  });
});
