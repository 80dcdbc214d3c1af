import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toHex } from 'viem';
import type { GasStrategy } from '../db/schema.ts';
import { type DevChain, startDevChain } from './dev-chain.ts';
import { bumpedFees, type Fees, MIN_BUMP_PERCENT, marketFees } from './fees.ts';
import { type ChainClient, createChainClient } from './rpc.ts';

function strategy(overrides: Partial<GasStrategy> = {}): GasStrategy {
  return { type: 'AUTO', maxFeePerGas: null, maxPriorityFeePerGas: null, bumpPercent: 13, ...overrides };
}
type Eip1559Fees = Extract<Fees, { type: 'eip1559' }>;
const eip1559 = (maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): Eip1559Fees => ({
  type: 'eip1559',
  maxFeePerGas,
  maxPriorityFeePerGas,
});
const legacy = (gasPrice: bigint): Fees => ({ type: 'legacy', gasPrice });

/** `next` is at least `percent` above `previous` (what nodes demand of a replacement, and more). */
function atLeastBumped(next: bigint, previous: bigint, percent: number): boolean {
  return next * 100n >= previous * BigInt(100 + percent);
}

describe('bumpedFees', () => {
  it('raises every component by at least 13% when the market is lower', () => {
    const next = bumpedFees(eip1559(100n, 10n), eip1559(50n, 5n), strategy());
    assert.deepEqual(next, eip1559(113n, 12n));
    const big = bumpedFees(eip1559(30_000_000_001n, 1_000_000_001n), eip1559(1n, 1n), strategy());
    assert.ok(big?.type === 'eip1559');
    assert.ok(atLeastBumped(big.maxFeePerGas, 30_000_000_001n, 13));
    assert.ok(atLeastBumped(big.maxPriorityFeePerGas, 1_000_000_001n, 13));
  });

  it('rounds up: tiny fees still rise', () => {
    assert.deepEqual(bumpedFees(eip1559(1n, 1n), eip1559(1n, 1n), strategy()), eip1559(2n, 2n));
    assert.deepEqual(bumpedFees(legacy(7n), legacy(1n), strategy()), legacy(8n));
  });

  it('goes to the market when the market is higher', () => {
    assert.deepEqual(bumpedFees(eip1559(100n, 10n), eip1559(1_000n, 50n), strategy()), eip1559(1_000n, 50n));
    assert.deepEqual(bumpedFees(legacy(100n), legacy(500n), strategy()), legacy(500n));
  });

  it('honours a bumpPercent above 13, never less than 13', () => {
    assert.deepEqual(
      bumpedFees(eip1559(100n, 10n), eip1559(1n, 1n), strategy({ bumpPercent: 50 })),
      eip1559(150n, 15n),
    );
    assert.deepEqual(bumpedFees(legacy(100n), legacy(1n), strategy({ bumpPercent: 10 })), legacy(113n));
    assert.equal(MIN_BUMP_PERCENT, 13);
  });

  it('respects the cap', () => {
    assert.deepEqual(
      bumpedFees(eip1559(100n, 10n), eip1559(1_000n, 50n), strategy({ maxFeePerGas: '150' })),
      eip1559(150n, 50n),
    );
    assert.deepEqual(bumpedFees(legacy(100n), legacy(500n), strategy({ maxFeePerGas: '120' })), legacy(120n));
  });

  it('returns null when the cap leaves no room for a valid replacement', () => {
    assert.equal(
      bumpedFees(eip1559(100n, 10n), eip1559(1_000n, 50n), strategy({ maxFeePerGas: '112' })),
      null,
    );
    assert.equal(bumpedFees(eip1559(100n, 10n), eip1559(100n, 10n), strategy({ maxFeePerGas: '100' })), null);
    assert.equal(bumpedFees(legacy(100n), legacy(500n), strategy({ maxFeePerGas: '112' })), null);
    assert.equal(bumpedFees(eip1559(100n, 100n), eip1559(1n, 1n), strategy({ maxFeePerGas: '112' })), null);
  });

  it('is not null when the cap leaves room, even if the market tip is above the cap', () => {
    // A node suggesting a 200 wei tip while the cap is 150: {150, 150} is a valid replacement of
    // {100, 100} (both +50%), within the cap.
    const next = bumpedFees(eip1559(100n, 100n), eip1559(400n, 200n), strategy({ maxFeePerGas: '150' }));
    assert.deepEqual(next, eip1559(150n, 150n));
  });

  it('mixes kinds: a legacy transaction on a chain that now has a base fee, and the reverse', () => {
    assert.deepEqual(bumpedFees(legacy(100n), eip1559(300n, 10n), strategy()), legacy(300n));
    assert.deepEqual(bumpedFees(eip1559(100n, 10n), legacy(300n), strategy()), eip1559(300n, 12n));
  });

  it('holds its promises over many random cases (seeded)', () => {
    let seed = 0x1234_5678;
    const random = (max: bigint): bigint => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return BigInt(seed) % max;
    };
    for (let i = 0; i < 5_000; i++) {
      const previous = eip1559(1n + random(10_000n), 0n);
      previous.maxPriorityFeePerGas = random(previous.maxFeePerGas + 1n);
      const marketFee = 1n + random(20_000n);
      const market = eip1559(marketFee, random(marketFee + 1n));
      const cap = random(3n) === 0n ? null : 1n + random(25_000n);
      const percent = 13 + Number(random(3n)) * 10;
      const s = strategy({ maxFeePerGas: cap === null ? null : cap.toString(), bumpPercent: percent });
      const next = bumpedFees(previous, market, s);
      const feeFloor = (previous.maxFeePerGas * BigInt(100 + percent) + 99n) / 100n;
      const tipFloor = (previous.maxPriorityFeePerGas * BigInt(100 + percent) + 99n) / 100n;
      const label = JSON.stringify({ previous, market, cap, percent }, (_, v) =>
        typeof v === 'bigint' ? v.toString() : v,
      );
      if (next === null) {
        // Only when no replacement within the cap exists.
        assert.ok(cap !== null && (cap < feeFloor || cap < tipFloor), `null without need: ${label}`);
        continue;
      }
      assert.equal(next.type, 'eip1559');
      if (next.type !== 'eip1559') continue;
      assert.ok(atLeastBumped(next.maxFeePerGas, previous.maxFeePerGas, percent), `fee bump: ${label}`);
      assert.ok(
        atLeastBumped(next.maxPriorityFeePerGas, previous.maxPriorityFeePerGas, percent),
        `tip: ${label}`,
      );
      assert.ok(next.maxPriorityFeePerGas <= next.maxFeePerGas, `tip within fee: ${label}`);
      if (cap !== null) assert.ok(next.maxFeePerGas <= cap, `cap: ${label}`);
      const reachable = cap === null || cap >= market.maxFeePerGas;
      if (reachable) assert.ok(next.maxFeePerGas >= market.maxFeePerGas, `market fee: ${label}`);
      const marketTip =
        market.maxPriorityFeePerGas < next.maxFeePerGas ? market.maxPriorityFeePerGas : next.maxFeePerGas;
      assert.ok(next.maxPriorityFeePerGas >= marketTip, `market tip, within the fee: ${label}`);
    }
  });
});

describe('marketFees against anvil', () => {
  let chain: DevChain;
  let client: ChainClient;
  const baseFee = 10n * 10n ** 9n;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const answer = (await response.json()) as { result?: T; error?: { message: string } };
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result as T;
  };

  before(async () => {
    chain = await startDevChain({ blockTimeSeconds: 1 });
    client = createChainClient(chain.rpcUrl);
    // No more blocks but the one below, whose base fee is known: fees stand still during the tests.
    await rpc('evm_setIntervalMining', [0]);
    await rpc('anvil_setNextBlockBaseFeePerGas', [toHex(baseFee)]);
    await rpc('evm_mine');
    assert.equal(await client.latestBaseFee(), baseFee);
  });
  after(() => chain.stop());

  it('AUTO on a chain with a base fee: EIP-1559, twice the base fee plus the node’s tip', async () => {
    const tip = BigInt(await rpc<string>('eth_maxPriorityFeePerGas'));
    assert.deepEqual(await marketFees(client, strategy()), eip1559(2n * baseFee + tip, tip));
    assert.deepEqual(
      await marketFees(client, strategy({ type: 'EIP1559' })),
      eip1559(2n * baseFee + tip, tip),
    );
  });

  it('a configured tip replaces the node’s', async () => {
    assert.deepEqual(
      await marketFees(client, strategy({ maxPriorityFeePerGas: '5' })),
      eip1559(2n * baseFee + 5n, 5n),
    );
  });

  it('the cap bounds the max fee, and the tip never exceeds the max fee', async () => {
    const cap = 15n * 10n ** 9n;
    const capped = await marketFees(
      client,
      strategy({ maxFeePerGas: cap.toString(), maxPriorityFeePerGas: '7' }),
    );
    assert.deepEqual(capped, eip1559(cap, 7n));
    assert.deepEqual(
      await marketFees(client, strategy({ maxFeePerGas: '100', maxPriorityFeePerGas: '1000' })),
      eip1559(100n, 100n),
    );
  });

  it('LEGACY: the node’s gas price, capped', async () => {
    const gasPrice = BigInt(await rpc<string>('eth_gasPrice'));
    assert.ok(gasPrice > 0n);
    assert.deepEqual(await marketFees(client, strategy({ type: 'LEGACY' })), legacy(gasPrice));
    assert.deepEqual(
      await marketFees(client, strategy({ type: 'LEGACY', maxFeePerGas: '1000' })),
      legacy(1000n),
    );
  });

  it('a chain without a base fee: AUTO goes legacy, EIP1559 is refused with a reason', async () => {
    const noBaseFee: ChainClient = { ...client, latestBaseFee: async () => null, gasPrice: async () => 42n };
    assert.deepEqual(await marketFees(noBaseFee, strategy()), legacy(42n));
    await assert.rejects(marketFees(noBaseFee, strategy({ type: 'EIP1559' })), /no base fee/);
  });
});
