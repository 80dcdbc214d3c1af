import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Hex } from 'viem';
import type { ChainClient } from '../../src/chain/rpc.ts';
import { organizationWalletOf } from '../../src/modules/platform/wallets/wallets.service.ts';
import { type RelayerTest, setupRelayerTest } from './harness.ts';

describe('relayer: the ordinary path', () => {
  let t: RelayerTest;
  before(async () => {
    t = await setupRelayerTest();
  });
  after(() => t.close());

  it('sends queued transactions with consecutive nonces, each exactly once, and completes them', async () => {
    const { rows, recipients, values } = await t.queueTransfers(30);
    const startNonce = await t.client.nonce(t.wallet.address as Hex, 'latest');
    t.relayer().start();
    const settled = await t.settled(rows.map((r) => r.id));
    for (const row of settled) {
      assert.equal(row.state, 'COMPLETED');
      assert.equal(row.on_chain_status, 'SUCCESS');
      assert.ok(row.tx_hash && row.mined_block_number && row.fee, 'hash, block and fee are recorded');
    }
    const nonces = settled.map((r) => Number(r.nonce)).sort((a, b) => a - b);
    assert.deepEqual(
      nonces,
      Array.from({ length: 30 }, (_, i) => startNonce + i),
    );
    for (const [i, recipient] of recipients.entries()) {
      assert.equal(await t.client.balance(recipient), values[i], `recipient ${i} was paid exactly once`);
    }
    assert.equal(await t.client.nonce(t.wallet.address as Hex, 'latest'), startNonce + 30);
  });

  it('cancels a transaction that reverts at estimation, with a readable reason, using no nonce', async () => {
    const before = await t.client.nonce(t.wallet.address as Hex, 'latest');
    const { queueTransaction } = await import(
      '../../src/modules/platform/transactions/transactions.service.ts'
    );
    // Calling a contract-less address with data is fine; deploying invalid bytecode reverts.
    const row = await queueTransaction(t.env.database.db, {
      networkId: 31337,
      wallet: t.wallet,
      type: 'DEPLOY',
      to: null,
      data: '0xfe',
    });
    const [settled] = await t.settled([row.id]);
    assert.equal(settled!.state, 'CANCELLED');
    assert.ok(settled!.failure_reason && settled!.failure_reason.length > 0);
    assert.equal(settled!.nonce, null);
    assert.equal(await t.client.nonce(t.wallet.address as Hex, 'latest'), before);
  });
});

describe('relayer: receipts by block', () => {
  let t: RelayerTest;
  before(async () => {
    t = await setupRelayerTest();
  });
  after(() => t.close());

  it('wallets of one network driven in the same passes each have every transaction completed once', async (ctx) => {
    const organization = await t.env.createOrganization();
    const other = await organizationWalletOf(t.env.database.db, organization.id);
    await t.rpc('anvil_setBalance', [other.address, `0x${(10n ** 22n).toString(16)}`]);
    const first = await t.queueTransfers(40);
    const second = await t.queueTransfers(40, other);
    let blockReads = 0;
    const client: ChainClient = {
      ...t.client,
      blockReceipts(number) {
        blockReads++;
        return t.client.blockReceipts(number);
      },
    };
    const relayer = t.relayer({ clientFor: () => client });
    relayer.start();
    ctx.after(() => relayer.stop());
    const settled = await t.settled([...first.rows, ...second.rows].map((r) => r.id));
    assert.ok(blockReads > 0, 'receipts were read by block');
    for (const row of settled) assert.equal(row.state, 'COMPLETED', row.failure_reason ?? '');
    for (const { recipients, values } of [first, second]) {
      for (const [i, recipient] of recipients.entries()) {
        assert.equal(await t.client.balance(recipient), values[i], `recipient ${i} was paid exactly once`);
      }
    }
  });

  it('a node without eth_getBlockReceipts: receipts are looked up one by one', async (ctx) => {
    let asked = 0;
    const client: ChainClient = {
      ...t.client,
      async blockReceipts() {
        asked++;
        throw new Error('the method eth_getBlockReceipts does not exist/is not available');
      },
    };
    // Enough in flight for block reads to be worth it (ROWS_PER_BLOCK_READ).
    const { rows, recipients, values } = await t.queueTransfers(40);
    const relayer = t.relayer({ clientFor: () => client });
    relayer.start();
    ctx.after(() => relayer.stop());
    const settled = await t.settled(rows.map((r) => r.id));
    assert.ok(asked > 0, 'block receipts were asked for');
    for (const row of settled) assert.equal(row.state, 'COMPLETED', row.failure_reason ?? '');
    for (const [i, recipient] of recipients.entries()) {
      assert.equal(await t.client.balance(recipient), values[i], `recipient ${i} was paid exactly once`);
    }
  });
});
