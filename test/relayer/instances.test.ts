import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Hex } from 'viem';
import { organizationWalletOf } from '../../src/modules/platform/wallets/wallets.service.ts';
import { type RelayerTest, setupRelayerTest } from './harness.ts';

describe('relayer: several worker instances on one database', () => {
  let t: RelayerTest;
  before(async () => {
    t = await setupRelayerTest();
  });
  after(() => t.close());

  it('sends every transaction once and skips none, whichever instance drives each wallet', async () => {
    const wallets = [t.wallet];
    for (let i = 0; i < 2; i++) {
      const organization = await t.env.createOrganization();
      const wallet = await organizationWalletOf(t.env.database.db, organization.id);
      await t.rpc('anvil_setBalance', [wallet.address, `0x${(10n ** 21n).toString(16)}`]);
      wallets.push(wallet);
    }
    const starts = await Promise.all(wallets.map((w) => t.client.nonce(w.address as Hex, 'latest')));
    const batches = [];
    for (const wallet of wallets) batches.push(await t.queueTransfers(20, wallet));
    // Three instances race for the same wallets from the start; short leases make them trade.
    for (let i = 0; i < 3; i++) t.relayer({ leaseSeconds: 1, pollMs: 30 }).start();
    for (const [w, batch] of batches.entries()) {
      const settled = await t.settled(batch.rows.map((r) => r.id));
      assert.ok(settled.every((r) => r.state === 'COMPLETED' && r.on_chain_status === 'SUCCESS'));
      for (const [i, recipient] of batch.recipients.entries()) {
        assert.equal(
          await t.client.balance(recipient),
          batch.values[i],
          `wallet ${w} recipient ${i} paid once`,
        );
      }
      assert.equal(await t.client.nonce(wallets[w]!.address as Hex, 'latest'), starts[w]! + 20);
    }
  });
});
