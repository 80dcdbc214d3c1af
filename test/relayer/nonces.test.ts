import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createWalletClient, defineChain, type Hex, http } from 'viem';
import { type ChainClient, createChainClient } from '../../src/chain/rpc.ts';
import { raiseNextNonce } from '../../src/modules/platform/transactions/transactions.repository.ts';
import { signerOf } from '../../src/modules/platform/wallets/wallets.service.ts';
import type { GateProxy } from '../chain/gate-proxy.ts';
import { CHAIN_ID, gateNode, type RelayerTest, setupRelayerTest } from './harness.ts';

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

/**
 * What the relayer asks the node while it fills nonce gaps (the market's fees for the no-ops) is
 * asked before its lease's transaction locks the wallet's nonce: a slow node holds up no row.
 */
describe('relayer: the node is asked with nothing locked', () => {
  let t: RelayerTest;
  let gate: GateProxy;
  before(async () => {
    t = await setupRelayerTest();
    gate = await gateNode(t.env.database.db, t.chain.rpcUrl);
  });
  after(async () => {
    await gate?.stop();
    await t?.close();
  });

  it("prices a nonce gap's no-ops before it locks the wallet's nonce, then fills the gap", async () => {
    const db = t.env.database.db;
    const address = t.wallet.address;
    const onChain = BigInt(await t.client.nonce(address as Hex, 'pending'));
    // Two nonces given out that never reached the chain: a gap the reconciliation fills.
    await raiseNextNonce(db, CHAIN_ID, address, onChain + 2n);
    gate.close((call) => call.method === 'eth_maxPriorityFeePerGas');
    // A transaction to send: the relayer takes the wallet's lease and reconciles its nonces.
    const { rows } = await t.queueTransfers(1);
    const relayer = t.relayer();
    relayer.start();
    for (
      const deadline = Date.now() + 30_000;
      !gate.held.some((c) => c.method === 'eth_maxPriorityFeePerGas');
    ) {
      if (Date.now() > deadline) throw new Error('the relayer never asked the fees');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const open = await sql<{ count: string }>`
      SELECT count(*) FROM pg_stat_activity
      WHERE datname = current_database() AND state LIKE 'idle in transaction%'`.execute(db);
    assert.equal(open.rows[0]!.count, '0', 'no transaction waits on the node');
    await db.transaction().execute(async (tx) => {
      const row = await sql`
        SELECT next_nonce FROM wallet_nonces WHERE network_id = ${CHAIN_ID} AND address = ${address}
        FOR UPDATE NOWAIT`.execute(tx);
      assert.equal(row.rows.length, 1);
    });
    gate.open();
    for (const deadline = Date.now() + 30_000; ; ) {
      if ((await t.client.nonce(address as Hex, 'latest')) === Number(onChain) + 3) break;
      if (Date.now() > deadline) throw new Error('the gap was not filled');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const fills = await db
      .selectFrom('transactions')
      .select('nonce')
      .where('type', '=', 'NONCE_GAP_FILL')
      .where('from_address', '=', address)
      .orderBy('nonce')
      .execute();
    assert.deepEqual(
      fills.map((f) => BigInt(f.nonce!)),
      [onChain, onChain + 1n],
    );
    const [sent] = await t.settled(rows.map((r) => r.id));
    assert.equal(BigInt(sent!.nonce!), onChain + 2n);
    await relayer.stop();
  });
});
