import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Hex, toHex } from 'viem';
import type { ChainClient } from '../../src/chain/rpc.ts';
import type { GasStrategy, TransactionAttemptRow, TransactionRow } from '../../src/db/schema.ts';
import { CHAIN_ID, type RelayerTest, setupRelayerTest } from './harness.ts';

const RESUBMIT_BLOCKS = 3;

describe('relayer: fees', () => {
  let t: RelayerTest;
  before(async () => {
    t = await setupRelayerTest({ txResubmitBlockCount: RESUBMIT_BLOCKS });
  });
  after(() => t.close());

  async function setGasStrategy(strategy: Partial<GasStrategy>): Promise<void> {
    const network = await t.network();
    const config = { ...network.config, gasStrategy: { ...network.config.gasStrategy, ...strategy } };
    await t.env.database.db
      .updateTable('networks')
      .set({ config: JSON.stringify(config) })
      .where('id', '=', CHAIN_ID)
      .execute();
  }

  async function row(id: string): Promise<TransactionRow> {
    return t.env.database.db
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  /** Signed versions of a transaction, oldest first. */
  async function attempts(id: string): Promise<TransactionAttemptRow[]> {
    return t.env.database.db
      .selectFrom('transaction_attempts')
      .selectAll()
      .where('transaction_id', '=', id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  async function baseFeeOf(blockNumber: bigint): Promise<bigint> {
    const block = await t.rpc<{ baseFeePerGas: Hex }>('eth_getBlockByNumber', [toHex(blockNumber), false]);
    return BigInt(block.baseFeePerGas);
  }

  /** The first version was priced below the base fee, a later one with higher fees was mined. */
  async function assertResubmittedHigher(done: TransactionRow): Promise<void> {
    assert.equal(done.state, 'COMPLETED', done.failure_reason ?? '');
    assert.equal(done.on_chain_status, 'SUCCESS');
    assert.ok(done.attempts >= 2, `resubmitted (attempts: ${done.attempts})`);
    const versions = await attempts(done.id);
    assert.equal(versions.length, done.attempts, 'one attempt row per signed version');
    assert.ok(
      versions.every((v) => v.nonce === done.nonce),
      'every version has the same nonce',
    );
    const [first] = versions;
    assert.notEqual(done.tx_hash, first!.tx_hash, 'the mined version is not the first one');
    assert.equal(await t.client.receipt(first!.tx_hash as Hex), null, 'the first version was never mined');
    const mined = versions.find((v) => v.tx_hash === done.tx_hash);
    assert.ok(mined, 'the mined hash is one of the recorded versions');
    assert.ok(BigInt(mined.max_fee_per_gas!) > BigInt(first!.max_fee_per_gas!), 'higher max fee');
    assert.ok(
      BigInt(mined.max_priority_fee_per_gas!) >= BigInt(first!.max_priority_fee_per_gas!),
      'tip not lower',
    );
    const onChain = await t.client.viem.getTransaction({ hash: done.tx_hash as Hex });
    assert.equal(onChain.maxFeePerGas, BigInt(mined.max_fee_per_gas!), 'the chain has the recorded fees');
    assert.ok(
      BigInt(first!.max_fee_per_gas!) < (await baseFeeOf(BigInt(done.mined_block_number!))),
      'the first version could not have been mined in that block',
    );
  }

  it('a transaction priced below the base fee (stale fee oracle) is resubmitted higher and mined', async (ctx) => {
    await setGasStrategy({ type: 'EIP1559', maxFeePerGas: null, maxPriorityFeePerGas: '1' });
    // The oracle answers a base fee of 1 wei once: the first version offers 3 wei per gas, below
    // anvil's base fee (never under 7 wei), and the node refuses it.
    let staleAnswers = 1;
    const client: ChainClient = {
      ...t.client,
      async latestBaseFee() {
        if (staleAnswers > 0) {
          staleAnswers--;
          return 1n;
        }
        return t.client.latestBaseFee();
      },
    };
    const { rows, recipients, values } = await t.queueTransfers(1);
    const relayer = t.relayer({ clientFor: () => client });
    relayer.start();
    ctx.after(() => relayer.stop());

    const [done] = await t.settled([rows[0]!.id], 30_000);
    assert.equal(staleAnswers, 0, 'the stale answer was used');
    await assertResubmittedHigher(done!);
    assert.equal((await attempts(done!.id))[0]!.max_fee_per_gas, '3', 'first version: 2 × 1 wei + 1 wei tip');
    assert.equal(await t.client.balance(recipients[0]!), values[0], 'paid exactly once');
  });

  it('fees never go past the gas strategy cap; raising the cap gets the transaction mined', async (ctx) => {
    // anvil's base fee never falls under 7 wei: a 5 wei cap can never be mined.
    await setGasStrategy({ type: 'EIP1559', maxFeePerGas: '5', maxPriorityFeePerGas: '1' });
    const address = t.wallet.address as Hex;
    const startNonce = await t.client.nonce(address, 'latest');
    const { rows, recipients, values } = await t.queueTransfers(1);
    const id = rows[0]!.id;
    const relayer = t.relayer();
    relayer.start();
    ctx.after(() => relayer.stop());

    // Wait until the relayer signed it, then for several resubmission periods.
    const signedDeadline = Date.now() + 10_000;
    while ((await row(id)).state === 'PENDING') {
      assert.ok(Date.now() < signedDeadline, 'signed in time');
      await sleep(50);
    }
    const from = await t.client.blockNumber();
    const blocksDeadline = Date.now() + 20_000;
    while ((await t.client.blockNumber()) < from + BigInt(5 * RESUBMIT_BLOCKS)) {
      assert.ok(Date.now() < blocksDeadline, 'the chain moves');
      await sleep(100);
    }
    const waiting = await row(id);
    assert.ok(['QUEUED', 'SUBMITTED'].includes(waiting.state), `still waiting: ${waiting.state}`);
    const capped = await attempts(id);
    assert.equal(capped.length, 1, 'no version beyond the cap was signed');
    assert.equal(waiting.attempts, 1);
    assert.ok(
      capped.every((v) => BigInt(v.max_fee_per_gas!) <= 5n),
      'every version within the cap',
    );
    assert.equal(await t.client.nonce(address, 'latest'), startNonce, 'nothing mined');
    assert.ok(waiting.last_error, 'the transaction says why it waits');

    await setGasStrategy({ maxFeePerGas: (10n ** 12n).toString() });
    const [done] = await t.settled([id], 30_000);
    await assertResubmittedHigher(done!);
    const versions = await attempts(id);
    assert.ok(
      versions.every((v) => BigInt(v.max_fee_per_gas!) <= 10n ** 12n),
      'within the new cap',
    );
    assert.equal(await t.client.balance(recipients[0]!), values[0], 'paid exactly once');
  });

  it('a LEGACY gas strategy sends legacy transactions: gas price, no EIP-1559 fields', async (ctx) => {
    await setGasStrategy({ type: 'LEGACY', maxFeePerGas: null, maxPriorityFeePerGas: null });
    const { rows, recipients, values } = await t.queueTransfers(3);
    const relayer = t.relayer();
    relayer.start();
    ctx.after(() => relayer.stop());

    const settled = await t.settled(
      rows.map((r) => r.id),
      30_000,
    );
    for (const [i, done] of settled.entries()) {
      assert.equal(done.state, 'COMPLETED', done.failure_reason ?? '');
      assert.equal(done.on_chain_status, 'SUCCESS');
      assert.ok(done.gas_price !== null && BigInt(done.gas_price) > 0n, 'gas price recorded');
      assert.equal(done.max_fee_per_gas, null);
      assert.equal(done.max_priority_fee_per_gas, null);
      for (const version of await attempts(done.id)) {
        assert.ok(version.gas_price !== null);
        assert.equal(version.max_fee_per_gas, null);
        assert.equal(version.max_priority_fee_per_gas, null);
      }
      const onChain = await t.client.viem.getTransaction({ hash: done.tx_hash as Hex });
      assert.equal(onChain.type, 'legacy');
      assert.equal(onChain.gasPrice, BigInt(done.gas_price!));
      assert.equal(onChain.chainId, CHAIN_ID, 'EIP-155 replay protection (eip155: true)');
      assert.equal(await t.client.balance(recipients[i]!), values[i], 'paid exactly once');
    }
  });

  // Last: it leaves anvil mining one block per second.
  it('the base fee jumps while the transaction waits in the pool: it is bumped after txResubmitBlockCount blocks and mined', async (ctx) => {
    await setGasStrategy({ type: 'EIP1559', maxFeePerGas: null, maxPriorityFeePerGas: null });
    const spike = 100n * 10n ** 9n;
    let spiked = false;
    let acceptedFirst: Hex | undefined;
    const client: ChainClient = {
      ...t.client,
      async sendRawTransaction(raw) {
        if (spiked) return t.client.sendRawTransaction(raw);
        spiked = true;
        // No block between the node taking the transaction and the spike: mining is paused
        // around it. The next block's base fee (100 gwei) is far above the transaction's.
        await t.rpc('evm_setIntervalMining', [0]);
        try {
          acceptedFirst = await t.client.sendRawTransaction(raw);
          return acceptedFirst;
        } finally {
          await t.rpc('anvil_setNextBlockBaseFeePerGas', [toHex(spike)]);
          await t.rpc('evm_setIntervalMining', [1]);
        }
      },
    };
    const { rows, recipients, values } = await t.queueTransfers(1);
    const relayer = t.relayer({ clientFor: () => client });
    relayer.start();
    ctx.after(() => relayer.stop());

    const [done] = await t.settled([rows[0]!.id], 40_000);
    assert.ok(spiked);
    await assertResubmittedHigher(done!);
    const [first] = await attempts(done!.id);
    assert.ok(BigInt(first!.max_fee_per_gas!) < spike, 'the first version was below the new base fee');
    assert.equal(acceptedFirst, first!.tx_hash, 'the node had taken the first version into its pool');
    assert.equal(await t.client.balance(recipients[0]!), values[0], 'paid exactly once');
  });
});
