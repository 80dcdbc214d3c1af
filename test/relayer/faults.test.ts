import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Hex } from 'viem';
import { createChainClient } from '../../src/chain/rpc.ts';
import { FAULT_KINDS, type FaultProxy, startFaultProxy } from '../chain/fault-proxy.ts';
import { CHAIN_ID, type RelayerTest, setupRelayerTest } from './harness.ts';

const TRANSFERS = 100;
const CLIENT_TIMEOUT_MS = 1_500;

describe('relayer behind a JSON-RPC endpoint that fails 20% of requests', () => {
  let t: RelayerTest;
  let proxy: FaultProxy;
  before(async () => {
    t = await setupRelayerTest();
    proxy = await startFaultProxy({
      target: t.chain.rpcUrl,
      seed: 0x5eed_2024,
      faultRate: 0.2,
      timeoutHoldMs: CLIENT_TIMEOUT_MS + 500,
    });
  });
  after(async () => {
    // The proxy first: a relayer pass still waiting on it then fails fast instead of timing out.
    await proxy.close();
    await t.close();
  });

  it('completes every transaction, none twice, with distinct nonces and no nonce left unused', async () => {
    const address = t.wallet.address as Hex;
    // Read directly from anvil, never through the proxy.
    const startNonce = await t.client.nonce(address, 'latest');
    const { rows, recipients, values } = await t.queueTransfers(TRANSFERS);
    const faulty = createChainClient(proxy.url, { timeoutMs: CLIENT_TIMEOUT_MS });
    t.relayer({ clientFor: () => faulty }).start();

    // Typically 35-45 s: one request in 25 hangs for the client's whole timeout.
    const settled = await t.settled(
      rows.map((r) => r.id),
      55_000,
    );
    for (const row of settled) {
      assert.equal(row.state, 'COMPLETED', `${row.id}: ${row.failure_reason ?? row.last_error}`);
      assert.equal(row.on_chain_status, 'SUCCESS');
    }

    // None twice: each recipient holds exactly its one transfer.
    for (const [i, recipient] of recipients.entries()) {
      assert.equal(await t.client.balance(recipient), values[i], `recipient ${i} was paid exactly once`);
    }

    // Every row of the wallet (transfers and any gap fills) is final, each on its own nonce, and
    // the chain's nonce moved by exactly their number: no nonce used twice, none skipped.
    const all = await t.env.database.db
      .selectFrom('transactions')
      .selectAll()
      .where('network_id', '=', CHAIN_ID)
      .where('from_address', '=', address)
      .execute();
    const gapFills = all.filter((r) => r.type === 'NONCE_GAP_FILL');
    assert.equal(all.length, TRANSFERS + gapFills.length, 'only transfers and gap fills were sent');
    for (const row of all) assert.equal(row.state, 'COMPLETED', `${row.type} ${row.id} is final`);
    const nonces = all.map((r) => Number(r.nonce)).sort((a, b) => a - b);
    assert.deepEqual(
      nonces,
      Array.from({ length: all.length }, (_, i) => startNonce + i),
      'nonces are distinct and contiguous',
    );
    assert.equal(await t.client.nonce(address, 'latest'), startNonce + TRANSFERS + gapFills.length);

    // The recorded hash and block are the chain's.
    for (const row of settled) {
      const receipt = await t.client.receipt(row.tx_hash as Hex);
      assert.ok(receipt, `receipt of ${row.tx_hash}`);
      assert.equal(receipt.status, 'success');
      assert.equal(receipt.blockHash, row.mined_block_hash);
      assert.equal(receipt.blockNumber.toString(), row.mined_block_number);
    }

    // The run really went through every kind of fault.
    for (const kind of FAULT_KINDS) {
      assert.ok(
        proxy.stats.faults[kind] > 0,
        `the proxy injected "${kind}" (${JSON.stringify(proxy.stats)})`,
      );
    }
    const injected = Object.values(proxy.stats.faults).reduce((a, b) => a + b, 0);
    assert.ok(
      injected / proxy.stats.requests > 0.1,
      `about 20% of requests failed: ${injected}/${proxy.stats.requests}`,
    );
  });
});
