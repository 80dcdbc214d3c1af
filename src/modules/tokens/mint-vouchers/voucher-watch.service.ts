import type { Kysely } from 'kysely';
import { getAddress, type Hex } from 'viem';
import { VOUCHER_ABI, VOUCHER_REDEEMED_EVENT } from '../../../chain/mint-voucher.ts';
import type { ChainClient } from '../../../chain/rpc.ts';
import type { Deps, VoucherHolders } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { Database, MintVoucherRow, NetworkRow } from '../../../db/schema.ts';
import { enqueue } from '../../../jobs/enqueue.ts';
import { coalescing } from '../../../lib/concurrency.ts';
import { completeMint, lockItems, releaseItemReservations } from '../../catalog/items/item-flows.service.ts';
import { chainClientOf, findNetwork, networkConfigOf } from '../../platform/networks/networks.service.ts';
import { organizationWalletOf } from '../../platform/wallets/wallets.service.ts';
import { watchMintVouchersJob } from './mint-vouchers.jobs.ts';
import * as repo from './mint-vouchers.repository.ts';

/** How often a network with PENDING vouchers is looked at. */
export const WATCH_INTERVAL_MS = 2_000;

/** Queues the network's watch (replacing any queued one: one per network). */
export async function scheduleWatch(db: Executor, networkId: number, delayMs = 0): Promise<void> {
  await enqueue(
    db,
    watchMintVouchersJob,
    { network_id: networkId },
    { jobKey: `watch_mint_vouchers:${networkId}`, runAt: new Date(Date.now() + delayMs) },
  );
}

/** Per database, the watch scheduling shared by the vouchers committed together (coalescing). */
const soonByDatabase = new WeakMap<Kysely<Database>, (networkId: number) => Promise<void>>();

/**
 * Queues the network's watch to run now, once a voucher is committed: the vouchers of a drop,
 * committed together, share one queueing of the job instead of each rewriting its row.
 */
export function scheduleWatchSoon(db: Kysely<Database>, networkId: number): Promise<void> {
  let soon = soonByDatabase.get(db);
  if (soon === undefined) {
    soon = coalescing((id: number) => scheduleWatch(db, id));
    soonByDatabase.set(db, soon);
  }
  return soon(networkId);
}

export type VoucherOutcome =
  | { kind: 'redeemed'; txHash: Hex; blockNumber: bigint; firstTokenId: bigint }
  | { kind: 'expired' }
  | { kind: 'cancelled' }
  | { kind: 'pending' };

/**
 * What the chain says of a PENDING voucher, as of the newest block `confirmations` deep:
 * redeemed (its VoucherRedeemed event, matched by minter, nonce and digest), cancelled (its nonce
 * was consumed by another voucher), expired (that block is past its expiry and its nonce unused:
 * no later block can take it, block timestamps never go back), or still pending.
 */
export async function voucherOutcome(
  client: ChainClient,
  voucher: MintVoucherRow,
  confirmed: { number: bigint; timestamp: bigint },
): Promise<VoucherOutcome> {
  const contract = getAddress(voucher.contract_address);
  const minter = getAddress(voucher.minter);
  const nonce = BigInt(voucher.nonce);
  const used = await client.viem.readContract({
    address: contract,
    abi: VOUCHER_ABI,
    functionName: 'nonces',
    args: [minter],
    blockNumber: confirmed.number,
  });
  if (used <= nonce)
    return confirmed.timestamp > BigInt(voucher.expiry) ? { kind: 'expired' } : { kind: 'pending' };
  const fromBlock = BigInt(voucher.issued_block);
  const logs = await client.viem.getLogs({
    address: contract,
    event: VOUCHER_REDEEMED_EVENT,
    args: { minter, nonce },
    fromBlock: fromBlock > confirmed.number ? confirmed.number : fromBlock,
    toBlock: confirmed.number,
  });
  const ours = logs.find((log) => log.args.digest?.toLowerCase() === voucher.digest.toLowerCase());
  if (ours?.transactionHash && ours.blockNumber !== null)
    return {
      kind: 'redeemed',
      txHash: ours.transactionHash,
      blockNumber: ours.blockNumber,
      firstTokenId: ours.args.firstTokenId ?? BigInt(voucher.token_id),
    };
  // The nonce went to another voucher (signed by another VOUCHER_SIGNER_ROLE key): ours is dead.
  if (logs.length > 0) return { kind: 'cancelled' };
  // Used, but its event is not found (a node that pruned its logs): look again later.
  return { kind: 'pending' };
}

/**
 * Applies an outcome to a voucher, in one database transaction, once: the row is locked and must
 * still be PENDING (a second run finds it settled and does nothing).
 */
export async function applyVoucherOutcome(
  db: Tx,
  deps: Deps,
  handlers: VoucherHolders,
  voucherId: string,
  outcome: VoucherOutcome,
): Promise<boolean> {
  if (outcome.kind === 'pending') return false;
  const voucher = await repo.lockVoucher(db, voucherId);
  if (voucher?.status !== 'PENDING') return false;
  const handler = handlers[voucher.holder_kind];
  switch (outcome.kind) {
    case 'redeemed': {
      await repo.updateVoucher(db, voucher.id, {
        status: 'REDEEMED',
        redeemed_tx_hash: outcome.txHash,
        redeemed_block: outcome.blockNumber.toString(),
        redeemed_token_id: outcome.firstTokenId.toString(),
      });
      const [item] = await lockItems(db, [voucher.item_id]);
      if (item && BigInt(item.minted_supply) === 0n) {
        const wallet = await organizationWalletOf(db, voucher.organization_id);
        await completeMint(db, {
          itemId: item.id,
          quantity: BigInt(voucher.quantity),
          toOrganizationWallet: wallet.address.toLowerCase() === voucher.minter,
          tokenId: item.token_id === null ? outcome.firstTokenId : undefined,
        });
      }
      await releaseItemReservations(db, voucher.holder_id, [voucher.item_id]);
      const updated = (await repo.findVoucher(db, voucher.id))!;
      await handler.redeemed(db, deps, updated);
      return true;
    }
    case 'expired':
    case 'cancelled': {
      await repo.updateVoucher(db, voucher.id, {
        status: outcome.kind === 'expired' ? 'EXPIRED' : 'CANCELLED',
      });
      const updated = (await repo.findVoucher(db, voucher.id))!;
      await handler.ended(db, deps, updated);
      return true;
    }
  }
}

/**
 * One look at a network's PENDING vouchers: the chain is read with no database transaction open,
 * then each voucher whose outcome is known is settled in its own short transaction. Returns how
 * many were settled and how many are still pending.
 */
export async function watchNetworkVouchers(
  db: Executor,
  deps: Deps,
  handlers: VoucherHolders,
  networkId: number,
): Promise<{ settled: number; pending: number }> {
  const network: NetworkRow | undefined = await findNetwork(db, networkId);
  // A network gone or disabled is looked at again by the minute's cron, not every few seconds.
  if (!network?.enabled) return { settled: 0, pending: 0 };
  const client = chainClientOf(deps, network);
  let confirmed: { number: bigint; timestamp: bigint } | undefined;
  let settled = 0;
  let pending = 0;
  let afterId: string | undefined;
  for (;;) {
    const vouchers = await repo.listPendingOfNetwork(db, networkId, WATCH_BATCH, afterId);
    if (vouchers.length === 0) break;
    afterId = vouchers.at(-1)!.id;
    if (confirmed === undefined) {
      const depth = BigInt(Math.max(1, networkConfigOf(network).confirmations)) - 1n;
      const head = await client.blockNumber();
      const number = head > depth ? head - depth : 0n;
      const block = await client.viem.getBlock({ blockNumber: number });
      confirmed = { number, timestamp: block.timestamp };
    }
    for (const voucher of vouchers) {
      let outcome: VoucherOutcome;
      try {
        outcome = await voucherOutcome(client, voucher, confirmed);
      } catch (error) {
        deps.logger.warn({ err: error, voucherId: voucher.id }, 'mint voucher: the chain could not be read');
        pending += 1;
        continue;
      }
      const done =
        outcome.kind !== 'pending' &&
        (await db
          .transaction()
          .execute((tx) => applyVoucherOutcome(tx, deps, handlers, voucher.id, outcome)));
      if (done) settled += 1;
      else pending += 1;
    }
    if (vouchers.length < WATCH_BATCH) break;
  }
  return { settled, pending };
}

const WATCH_BATCH = 200;
