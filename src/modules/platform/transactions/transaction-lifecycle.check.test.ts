import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { completedTransactionColumns, submittedTransactionColumns } from '../../../../test/factories.ts';
import { setupTest, type TestEnv } from '../../../../test/harness.ts';
import type { WalletRow } from '../../../db/schema.ts';
import { organizationWalletOf } from '../wallets/wallets.service.ts';
import { lifecycleOf } from './transaction-lifecycle.ts';
import { queueTransaction } from './transactions.service.ts';

describe('the transactions_lifecycle CHECK keeps rows to their state variant', () => {
  let env: TestEnv;
  let wallet: WalletRow;
  let nonce = 0;
  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    wallet = await organizationWalletOf(env.database.db, (await env.createOrganization()).id);
  });
  after(() => env.close());

  const queue = async () =>
    (
      await queueTransaction(env.database.db, {
        networkId: 31337,
        wallet,
        type: 'MINT',
        to: wallet.address,
        data: '0x',
      })
    ).id;
  const update = (id: string, patch: Record<string, unknown>) =>
    env.database.db
      .updateTable('transactions')
      .set(patch)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  const refused = (id: string, patch: Record<string, unknown>) =>
    assert.rejects(update(id, patch), /violates check constraint "transactions_/);

  it('accepts every state as the relayer writes it, and lifecycleOf reads each', async () => {
    const id = await queue();
    const { submitted_at: _, submitted_block: __, ...signed } = submittedTransactionColumns(nonce++);
    for (const patch of [
      { state: 'QUEUED', ...signed },
      { state: 'SUBMITTED', submitted_at: new Date(), submitted_block: '1' },
      { mined_block_number: '2', mined_block_hash: `0x${'0b'.repeat(32)}` },
      // A nonce consumed elsewhere: back to PENDING, keeping its gas limit and fees.
      {
        state: 'PENDING',
        nonce: null,
        raw_tx: null,
        tx_hash: null,
        submitted_at: null,
        submitted_block: null,
        mined_block_number: null,
        mined_block_hash: null,
      },
      completedTransactionColumns(nonce++, 'SUCCESS'),
    ]) {
      const row = await update(id, patch);
      assert.equal(lifecycleOf(row).state, row.state);
    }
    const cancelled = await update(await queue(), {
      state: 'CANCELLED',
      failure_reason: 'execution reverted',
      completed_at: new Date(),
    });
    assert.equal(lifecycleOf(cancelled).state, 'CANCELLED');
  });

  it('refuses signed states without their nonce, gas limit, raw bytes, hash or one fee model', async () => {
    const id = await queue();
    const signed = submittedTransactionColumns(nonce++);
    await refused(id, { state: 'QUEUED' });
    for (const column of ['nonce', 'gas_limit', 'raw_tx', 'tx_hash', 'max_fee_per_gas'] as const) {
      await refused(id, { ...signed, state: 'QUEUED', [column]: null });
    }
    await refused(id, { ...signed, state: 'QUEUED', gas_price: '1' });
    await refused(id, { ...signed, state: 'SUBMITTED', submitted_block: null });
    await refused(id, { ...signed, state: 'SUBMITTED', mined_block_number: '2' });
  });

  it('refuses a COMPLETED row without its receipt, a CANCELLED one without its reason', async () => {
    const id = await queue();
    await refused(id, {
      ...submittedTransactionColumns(nonce++),
      state: 'COMPLETED',
      on_chain_status: 'SUCCESS',
    });
    await refused(id, { ...completedTransactionColumns(nonce++, 'SUCCESS'), gas_used: null });
    await refused(id, { state: 'CANCELLED', completed_at: new Date() });
  });

  it('refuses a PENDING row that holds a nonce or signed bytes', async () => {
    const id = await queue();
    await refused(id, { nonce: '5' });
    await refused(id, { raw_tx: '0x02' });
    await refused(id, { tx_hash: `0x${'12'.repeat(32)}` });
  });
});
