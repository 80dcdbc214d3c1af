import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createWalletClient, defineChain, type Hex, http } from 'viem';
import { type ChainClient, createChainClient } from '../../src/chain/rpc.ts';
import { signerOf } from '../../src/modules/platform/wallets/wallets.service.ts';
import { type RelayerTest, setupRelayerTest } from './harness.ts';

describe('relayer: nonces', () => {
  let t: RelayerTest;
  before(async () => {
    t = await setupRelayerTest();
  });
  after(() => t.close());

  it('does not jam when the wallet sends a transaction outside the service (nonce drift)', async () => {
    // Long reconcile interval: the drift is met at broadcast ("nonce too low"), not by reconciling.
    const relayer = t.relayer({ reconcileEveryMs: 3_600_000 });
    relayer.start();
    const first = await t.queueTransfers(3);
    await t.settled(first.rows.map((r) => r.id));

    const account = signerOf(t.env.ctx.keyring, t.wallet);
    const chain = defineChain({
      id: 31337,
      name: 'anvil',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [t.chain.rpcUrl] } },
    });
    const outside = createWalletClient({ account, chain, transport: http(t.chain.rpcUrl) });
    const hash = await outside.sendTransaction({
      to: `0x${randomBytes(20).toString('hex')}` as Hex,
      value: 1n,
    });
    const deadline = Date.now() + 20_000;
    while (!(await t.client.receipt(hash))) {
      if (Date.now() > deadline) throw new Error('the outside transaction was not mined');
      await new Promise((r) => setTimeout(r, 50));
    }
    const nonceAfterOutside = await t.client.nonce(t.wallet.address as Hex, 'latest');

    const second = await t.queueTransfers(5);
    const settled = await t.settled(second.rows.map((r) => r.id));
    assert.ok(settled.every((r) => r.state === 'COMPLETED' && r.on_chain_status === 'SUCCESS'));
    for (const [i, recipient] of second.recipients.entries()) {
      assert.equal(await t.client.balance(recipient), second.values[i]);
    }
    assert.equal(await t.client.nonce(t.wallet.address as Hex, 'latest'), nonceAfterOutside + 5);
    await relayer.stop();
  });

  it('fills the nonce of a transaction the node refuses for good with a no-op, so later ones go through', async () => {
    const { rows, recipients, values } = await t.queueTransfers(3);
    const doomed = rows[0]!;
    let refused = false;
    const refusing = (url: string): ChainClient => {
      const real = createChainClient(url);
      return {
        ...real,
        async sendRawTransaction(raw) {
          const row = await t.env.database.db
            .selectFrom('transactions')
            .select('id')
            .where('raw_tx', '=', raw)
            .executeTakeFirst();
          if (row?.id === doomed.id) {
            refused = true;
            throw new Error('intrinsic gas too low: invalid transaction');
          }
          return real.sendRawTransaction(raw);
        },
      };
    };
    const relayer = t.relayer({ clientFor: (network) => refusing(network.config.url) });
    relayer.start();
    const settled = await t.settled(rows.map((r) => r.id));
    assert.ok(refused);
    assert.equal(settled[0]!.state, 'CANCELLED');
    assert.match(settled[0]!.failure_reason ?? '', /intrinsic gas too low/);
    const fill = await t.env.database.db
      .selectFrom('transactions')
      .selectAll()
      .where('type', '=', 'NONCE_GAP_FILL')
      .where('nonce', '=', settled[0]!.nonce)
      .executeTakeFirstOrThrow();
    const [filled] = await t.settled([fill.id]);
    assert.equal(filled!.state, 'COMPLETED');
    for (const i of [1, 2]) {
      assert.equal(settled[i]!.state, 'COMPLETED');
      assert.equal(await t.client.balance(recipients[i]!), values[i]);
    }
    assert.equal(await t.client.balance(recipients[0]!), 0n, 'the cancelled transfer never happened');
    // The fill took a nonce below those already given: the next one given stays after them all.
    const { next_nonce } = await t.env.database.db
      .selectFrom('wallet_nonces')
      .select('next_nonce')
      .where('network_id', '=', 31337)
      .where(sql<boolean>`lower(address) = lower(${t.wallet.address})`)
      .executeTakeFirstOrThrow();
    const highest = settled.reduce((max, row) => (BigInt(row.nonce!) > max ? BigInt(row.nonce!) : max), 0n);
    assert.equal(BigInt(next_nonce), highest + 1n);
    const later = await t.queueTransfers(1);
    const [sent] = await t.settled(later.rows.map((r) => r.id));
    assert.equal(sent!.state, 'COMPLETED');
    assert.equal(BigInt(sent!.nonce!), highest + 1n);
    await relayer.stop();
  });
});
