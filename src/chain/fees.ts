import type { GasStrategy } from '../db/schema.ts';
import type { ChainClient } from './rpc.ts';

/** Fees of one signed version of a transaction. */
export type Fees =
  | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  | { type: 'legacy'; gasPrice: bigint };

/** Nodes accept a replacement only with fees at least 10% higher; 13% clears every client. */
export const MIN_BUMP_PERCENT = 13;

function capped(value: bigint, cap: string | null): bigint {
  if (cap === null) return value;
  const limit = BigInt(cap);
  return value > limit ? limit : value;
}

/** What the chain takes now, per the network's gas strategy. */
export async function marketFees(client: ChainClient, strategy: GasStrategy): Promise<Fees> {
  const baseFee = strategy.type === 'LEGACY' ? null : await client.latestBaseFee();
  if (strategy.type === 'LEGACY' || baseFee === null) {
    if (strategy.type === 'EIP1559')
      throw new Error('the network has no base fee: its gas strategy must be LEGACY or AUTO');
    return { type: 'legacy', gasPrice: capped(await client.gasPrice(), strategy.maxFeePerGas) };
  }
  const tip =
    strategy.maxPriorityFeePerGas !== null
      ? BigInt(strategy.maxPriorityFeePerGas)
      : await client.maxPriorityFeePerGas();
  // Twice the base fee absorbs six full blocks of base-fee growth before the cap is reached.
  const maxFeePerGas = capped(baseFee * 2n + tip, strategy.maxFeePerGas);
  return { type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas: tip > maxFeePerGas ? maxFeePerGas : tip };
}

/**
 * Fees for a resubmission: every component at least `bumpPercent` above the previous version
 * (so nodes accept the replacement) and at least the market's, within the cap. Returns null when
 * the cap leaves no room for a valid replacement.
 */
export function bumpedFees(previous: Fees, market: Fees, strategy: GasStrategy): Fees | null {
  const percent = BigInt(Math.max(MIN_BUMP_PERCENT, strategy.bumpPercent));
  const bump = (v: bigint) => (v * (100n + percent) + 99n) / 100n;
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  if (previous.type === 'legacy') {
    const floor = bump(previous.gasPrice);
    const marketPrice = market.type === 'legacy' ? market.gasPrice : market.maxFeePerGas;
    const gasPrice = capped(max(floor, marketPrice), strategy.maxFeePerGas);
    return gasPrice < floor ? null : { type: 'legacy', gasPrice };
  }
  const tipFloor = bump(previous.maxPriorityFeePerGas);
  const feeFloor = bump(previous.maxFeePerGas);
  const marketFee = market.type === 'eip1559' ? market.maxFeePerGas : market.gasPrice;
  const marketTip = market.type === 'eip1559' ? market.maxPriorityFeePerGas : 0n;
  const maxFeePerGas = capped(max(feeFloor, marketFee), strategy.maxFeePerGas);
  // The tip can never exceed the max fee: a market tip above the cap is cut down to it.
  const wantedTip = max(tipFloor, marketTip);
  const maxPriorityFeePerGas = wantedTip > maxFeePerGas ? maxFeePerGas : wantedTip;
  if (maxFeePerGas < feeFloor || maxPriorityFeePerGas < tipFloor) return null;
  return { type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas };
}
