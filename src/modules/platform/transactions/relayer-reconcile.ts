import type { Fees } from '../../../chain/fees.ts';
import type { Executor } from '../../../db/executor.ts';
import { type Pair, type PassContext, passFees } from './relayer-pass.ts';
import { signAndQueue } from './relayer-sign.ts';
import { lifecycleIn } from './transaction-lifecycle.ts';
import * as repo from './transactions.repository.ts';

/*
 * Step 1 of a relayer pass (relayer.ts), on taking the lease, then periodically: raise the next
 * nonce past nonces used outside the service, and fill nonce gaps with no-op self-transfers.
 */

const GAP_FILL_GAS = 21_000n;
const MAX_GAP_FILLS_PER_PASS = 100;

export async function reconcile(ctx: PassContext, pair: Pair): Promise<void> {
  // Nonces below the node's pending nonce are taken (mined, or waiting in its pool).
  const chainPending = BigInt(await pair.client.nonce(pair.address, 'pending'));
  // Gaps are filled at the market's fees, asked before the lease's lock when there may be gaps.
  const known = await repo.findNextNonce(ctx.db, pair.network.id, pair.address);
  const fees = known !== undefined && known > chainPending ? await passFees(pair) : undefined;
  await ctx.withLease(pair, async (tx) => {
    const next = await repo.raiseNextNonce(tx, pair.network.id, pair.address, chainPending);
    // Nonces taken since the read are left to the next reconciliation.
    if (next <= chainPending || fees === undefined) return;
    const used = await repo.usedNonces(tx, pair.network.id, pair.address, chainPending, next);
    let filled = 0;
    for (let nonce = chainPending; nonce < next && filled < MAX_GAP_FILLS_PER_PASS; nonce++) {
      if (used.has(nonce.toString())) continue;
      await queueGapFill(tx, pair, nonce, fees);
      filled++;
    }
    if (filled > 0)
      ctx.log.warn({ network: pair.network.id, address: pair.address, filled }, 'filled nonce gaps');
  });
}

/** A no-op self-transfer holding `nonce` at `fees`, so the transactions after it are not stuck. */
export async function queueGapFill(tx: Executor, pair: Pair, nonce: bigint, fees: Fees): Promise<void> {
  const row = await repo.insertTransaction(tx, {
    organizationId: pair.wallet.organization_id,
    networkId: pair.network.id,
    walletId: pair.wallet.id,
    from: pair.address,
    type: 'NONCE_GAP_FILL',
    to: pair.address,
    data: '0x',
    value: 0n,
    gasLimit: GAP_FILL_GAS,
  });
  await signAndQueue(tx, pair, lifecycleIn(row, ['PENDING']), nonce, GAP_FILL_GAS, fees);
}
