import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Hex } from 'viem';
import {
  ensurePlatformWallet,
  organizationWalletOf,
} from '../../src/modules/platform/wallets/wallets.service.ts';
import { type RelayerTest, setupRelayerTest } from './harness.ts';

describe('relayer: autoFund', () => {
  let t: RelayerTest;
  before(async () => {
    t = await setupRelayerTest({ autoFundAmount: (10n ** 18n).toString() });
  });
  after(() => t.close());

  it('tops up an organization wallet that cannot pay from the platform wallet, once, then sends', async () => {
    const platform = await ensurePlatformWallet(
      t.env.database.db,
      t.env.ctx.keyring,
      t.chain.accounts[2]!.privateKey,
    );
    const funded = await t.env.createOrganization(undefined);
    await t.env.database.db
      .updateTable('organizations')
      .set({ auto_fund: true })
      .where('id', '=', funded.id)
      .execute();
    const wallet = await organizationWalletOf(t.env.database.db, funded.id);
    assert.equal(await t.client.balance(wallet.address as Hex), 0n);
    const { rows, recipients, values } = await t.queueTransfers(3, wallet);
    t.relayer().start();
    const settled = await t.settled(rows.map((r) => r.id));
    assert.ok(settled.every((r) => r.state === 'COMPLETED' && r.on_chain_status === 'SUCCESS'));
    for (const [i, recipient] of recipients.entries())
      assert.equal(await t.client.balance(recipient), values[i]);
    const fundings = await t.env.database.db
      .selectFrom('transactions')
      .selectAll()
      .where('type', '=', 'FUNDING')
      .where('to_address', '=', wallet.address)
      .where('from_address', '=', platform.address)
      .execute();
    assert.equal(fundings.length, 1, 'one top-up, not one per waiting transaction');
    assert.equal(fundings[0]!.value, (10n ** 18n).toString());
    assert.equal(fundings[0]!.state, 'COMPLETED');
  });

  it('does not top up an organization without auto_fund: its transaction waits, reporting why', async () => {
    const organization = await t.env.createOrganization();
    const wallet = await organizationWalletOf(t.env.database.db, organization.id);
    const { rows } = await t.queueTransfers(1, wallet);
    t.relayer().start();
    const deadline = Date.now() + 20_000;
    let row = rows[0]!;
    while (row.last_error === null) {
      if (Date.now() > deadline) throw new Error('no error recorded');
      await new Promise((r) => setTimeout(r, 100));
      row = await t.env.database.db
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', row.id)
        .executeTakeFirstOrThrow();
    }
    // Waiting for funds (before or after taking its nonce), never cancelled for it.
    assert.ok(row.state === 'PENDING' || row.state === 'QUEUED', row.state);
    assert.match(row.last_error ?? '', /insufficient funds|exceeds the balance/i);
    const fundings = await t.env.database.db
      .selectFrom('transactions')
      .select('id')
      .where('type', '=', 'FUNDING')
      .where('to_address', '=', wallet.address)
      .execute();
    assert.equal(fundings.length, 0);
  });
});
