import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Hex, toHex } from 'viem';
import type { ChainClient } from '../../src/chain/rpc.ts';
import type { TransactionRow } from '../../src/db/schema.ts';
import { type RelayerTest, setupRelayerTest } from './harness.ts';

const CONFIRMATIONS = 5;

/**
 * `anvil_reorg [depth, txBlockPairs]` replaces the last `depth` blocks with as many new ones; the
 * transactions of the removed blocks are dropped (anvil does not return them to its pool), except
 * those listed in `txBlockPairs` as `[rawTx, offset]`, mined again in the new block at `offset`.
 */
describe('relayer: reorgs of a mined, not yet confirmed transaction', () => {
  let t: RelayerTest;
  before(async () => {
    // Slower blocks give a wide window between "mined" and "confirmed" (4 blocks, 2 s).
    t = await setupRelayerTest({ confirmations: CONFIRMATIONS }, 0.5);
    // Some history, so that the reorgs below have blocks to remove.
    await t.rpc('anvil_mine', [toHex(20)]);
  });
  after(() => t.close());

  async function row(id: string): Promise<TransactionRow> {
    return t.env.database.db
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  /** Waits (bounded) until the relayer saw the receipt but has not counted the confirmations yet. */
  async function minedNotConfirmed(id: string): Promise<TransactionRow> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const current = await row(id);
      assert.notEqual(current.state, 'COMPLETED', 'the reorg must come before the confirmations');
      if (current.state === 'SUBMITTED' && current.mined_block_number !== null) return current;
      assert.ok(Date.now() < deadline, `not mined in time: ${current.state} ${current.last_error ?? ''}`);
      await sleep(20);
    }
  }

  async function canonicalHash(blockNumber: string): Promise<Hex | undefined> {
    const block = await t.rpc<{ hash: Hex } | null>('eth_getBlockByNumber', [
      toHex(BigInt(blockNumber)),
      false,
    ]);
    return block?.hash;
  }

  async function assertSettledOnCanonicalChain(
    id: string,
    droppedBlockHash: string,
    recipient: Hex,
    value: bigint,
  ) {
    const [done] = await t.settled([id], 30_000);
    assert.equal(done!.state, 'COMPLETED', done!.failure_reason ?? '');
    assert.equal(done!.on_chain_status, 'SUCCESS');
    assert.notEqual(done!.mined_block_hash, droppedBlockHash, 'not the block the reorg removed');
    assert.equal(
      done!.mined_block_hash,
      await canonicalHash(done!.mined_block_number!),
      'the canonical block',
    );
    const receipt = await t.client.receipt(done!.tx_hash as Hex);
    assert.ok(receipt, 'the recorded hash is on chain');
    assert.equal(receipt.blockHash, done!.mined_block_hash);
    const head = await t.client.blockNumber();
    assert.ok(head - receipt.blockNumber + 1n >= BigInt(CONFIRMATIONS), 'completed only once confirmed');
    assert.equal(await t.client.balance(recipient), value, 'the recipient was paid exactly once');
    return done!;
  }

  it('a reorg that drops the transaction: the relayer sends it again and completes it once', async (ctx) => {
    const relayer = t.relayer();
    relayer.start();
    ctx.after(() => relayer.stop());
    const address = t.wallet.address as Hex;
    const startNonce = await t.client.nonce(address, 'latest');
    const { rows, recipients, values } = await t.queueTransfers(1);
    const id = rows[0]!.id;
    const mined = await minedNotConfirmed(id);

    const head = await t.client.blockNumber();
    const depth = Number(head - BigInt(mined.mined_block_number!)) + 2;
    await t.rpc('anvil_reorg', [depth, []]);
    assert.notEqual(
      await canonicalHash(mined.mined_block_number!),
      mined.mined_block_hash,
      'the reorg replaced the block of the transaction',
    );
    assert.equal(await t.client.nonce(address, 'latest'), startNonce, 'the reorg undid the transaction');

    const done = await assertSettledOnCanonicalChain(id, mined.mined_block_hash!, recipients[0]!, values[0]!);
    assert.equal(done.nonce, mined.nonce, 'same nonce: the same transaction, sent again');
    assert.equal(done.tx_hash, mined.tx_hash);
    assert.equal(await t.client.nonce(address, 'latest'), startNonce + 1, 'one transaction on chain');
  });

  it('a reorg that moves the transaction to another block: the relayer confirms it in its new block', async (ctx) => {
    const relayer = t.relayer();
    relayer.start();
    ctx.after(() => relayer.stop());
    const address = t.wallet.address as Hex;
    const startNonce = await t.client.nonce(address, 'latest');
    const { rows, recipients, values } = await t.queueTransfers(1);
    const id = rows[0]!.id;
    const mined = await minedNotConfirmed(id);

    const head = await t.client.blockNumber();
    const depth = Number(head - BigInt(mined.mined_block_number!)) + 2;
    // The same signed transaction, mined again in the last of the new blocks.
    await t.rpc('anvil_reorg', [depth, [[mined.raw_tx, depth - 1]]]);
    const moved = await t.client.receipt(mined.tx_hash as Hex);
    assert.ok(moved, 'the transaction is on the new chain');
    assert.notEqual(moved.blockHash, mined.mined_block_hash, 'in another block');

    const done = await assertSettledOnCanonicalChain(id, mined.mined_block_hash!, recipients[0]!, values[0]!);
    assert.equal(done.mined_block_hash, moved.blockHash, 'recorded in the block it moved to');
    assert.equal(await t.client.nonce(address, 'latest'), startNonce + 1, 'one transaction on chain');
  });

  it('a reorg between reading the nonce and the receipt, the dropped transaction back in the pool: paid once', async (ctx) => {
    // On a real chain the transactions of reorged blocks go back to the mempool and are mined
    // again. Here the reorg lands just after the relayer read the wallet's nonce (which still
    // counts the transaction) and before it looked for the receipt (now gone), and the dropped
    // transaction is handed back to anvil's pool as a real node would keep it. The relayer must
    // not conclude that "another transaction used the nonce" and sign a second one.
    const address = t.wallet.address as Hex;
    const startNonce = await t.client.nonce(address, 'latest');
    const { rows, recipients, values } = await t.queueTransfers(1);
    const id = rows[0]!.id;
    let reorged: { blockHash: Hex; dropped: boolean } | undefined;
    const base = t.client;
    const ours = async () => {
      const current = await row(id);
      return current.tx_hash && current.nonce !== null ? current : undefined;
    };
    const client: ChainClient = {
      ...base,
      async nonce(who, tag) {
        const value = await base.nonce(who, tag);
        const current = reorged || tag === 'pending' ? undefined : await ours();
        const receipt = current && (await base.receipt(current.tx_hash as Hex));
        if (current && receipt) {
          // Mined: the reorg comes now, after the nonce was read.
          const head = await base.blockNumber();
          await t.rpc('anvil_reorg', [Number(head - receipt.blockNumber) + 2, []]);
          const dropped = (await base.receipt(current.tx_hash as Hex)) === null;
          await t.rpc('eth_sendRawTransaction', [current.raw_tx]);
          reorged = { blockHash: receipt.blockHash, dropped };
        }
        return value;
      },
      async receipt(hash) {
        // Until the reorg, the receipt is not visible to the relayer yet (an indexing lag), so
        // that it meets the reorg without having recorded the block.
        if (!reorged && hash === (await ours())?.tx_hash) return null;
        return base.receipt(hash);
      },
      async blockReceipts(number) {
        const receipts = await base.blockReceipts(number);
        const hidden = reorged ? undefined : (await ours())?.tx_hash;
        return receipts?.filter((r) => r.transactionHash !== hidden) ?? null;
      },
    };
    const relayer = t.relayer({ clientFor: () => client });
    relayer.start();
    ctx.after(() => relayer.stop());

    const [done] = await t.settled([id], 30_000);
    assert.ok(reorged?.dropped, 'the reorg dropped the transaction');
    assert.notEqual(done!.mined_block_hash, reorged.blockHash, 'not the block the reorg removed');
    assert.equal(done!.state, 'COMPLETED', done!.failure_reason ?? '');
    assert.equal(
      done!.mined_block_hash,
      await canonicalHash(done!.mined_block_number!),
      'the canonical block',
    );
    // Give a second transaction, had one been signed, the time to be mined before counting.
    const settledAt = await t.client.blockNumber();
    await waitForBlock(settledAt + 3n);
    assert.equal(await t.client.balance(recipients[0]!), values[0], 'the recipient was paid exactly once');
    assert.equal(await t.client.nonce(address, 'latest'), startNonce + 1, 'one transaction on chain');
    const all = await t.env.database.db
      .selectFrom('transactions')
      .select(['nonce', 'state'])
      .where('from_address', '=', address)
      .where('nonce', '>=', String(startNonce))
      .execute();
    assert.deepEqual(
      all,
      [{ nonce: String(startNonce), state: 'COMPLETED' }],
      'no second transaction queued',
    );
  });

  async function waitForBlock(target: bigint): Promise<void> {
    const deadline = Date.now() + 10_000;
    while ((await t.client.blockNumber()) < target) {
      assert.ok(Date.now() < deadline, `block ${target} not reached`);
      await sleep(50);
    }
  }
});
