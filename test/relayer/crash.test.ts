import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex } from 'viem';
import { type ChainClient, createChainClient } from '../../src/chain/rpc.ts';
import { Relayer } from '../../src/modules/platform/transactions/relayer.ts';
import { type RelayerTest, setupRelayerTest } from './harness.ts';

/** A client whose process "dies" inside eth_sendRawTransaction: the call never returns. */
function dyingClient(url: string, sendFirst: boolean): ChainClient {
  const real = createChainClient(url);
  return {
    ...real,
    async sendRawTransaction(raw) {
      if (sendFirst) await real.sendRawTransaction(raw);
      return new Promise<Hex>(() => {});
    },
  };
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('relayer: crashes never send a transaction twice or lose one', () => {
  let t: RelayerTest;
  before(async () => {
    t = await setupRelayerTest();
  });
  after(() => t.close());

  for (const sendFirst of [false, true]) {
    const point = sendFirst ? 'between broadcast and recording it' : 'between signing and broadcast';
    it(`crash ${point}: another instance finishes with exactly one transaction on chain per row`, async () => {
      const startNonce = await t.client.nonce(t.wallet.address as Hex, 'latest');
      const { rows, recipients, values } = await t.queueTransfers(8);
      // Instance A signs and stores every row, then dies in its first broadcast (never stopped:
      // a crashed process releases nothing, its lease just expires).
      const crashed = new Relayer(t.env.ctx, {
        instanceId: `crashed-${sendFirst}`,
        pollMs: 50,
        leaseSeconds: 1,
        clientFor: (network) => dyingClient(network.config.url, sendFirst),
      });
      crashed.start();
      await waitFor(async () => {
        const queued = await t.env.database.db
          .selectFrom('transactions')
          .select('id')
          .where(
            'id',
            'in',
            rows.map((r) => r.id),
          )
          .where('state', '=', 'QUEUED')
          .execute();
        return queued.length === rows.length;
      }, 'the crashing instance to sign every row');
      const stored = await t.env.database.db
        .selectFrom('transactions')
        .select(['id', 'raw_tx', 'tx_hash'])
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .execute();
      assert.ok(
        stored.every((r) => r.raw_tx && r.tx_hash),
        'the raw transaction is stored before any broadcast',
      );

      const survivor = t.relayer({ leaseSeconds: 1 });
      survivor.start();
      const settled = await t.settled(rows.map((r) => r.id));
      for (const row of settled) {
        assert.equal(row.state, 'COMPLETED');
        assert.equal(row.on_chain_status, 'SUCCESS');
        // The same signed bytes were sent again: the hash is the one stored before the crash.
        assert.equal(row.tx_hash, stored.find((s) => s.id === row.id)!.tx_hash);
      }
      for (const [i, recipient] of recipients.entries()) {
        assert.equal(await t.client.balance(recipient), values[i], `recipient ${i} paid exactly once`);
      }
      assert.equal(await t.client.nonce(t.wallet.address as Hex, 'latest'), startNonce + rows.length);
      await survivor.stop();
    });
  }
});
