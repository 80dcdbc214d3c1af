import type { Logger } from 'pino';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { type ChainClient, classifyRpcError } from '../../../chain/rpc.ts';
import type { AppContext } from '../../../context.ts';
import type { Tx } from '../../../db/executor.ts';
import type { NetworkRow, WalletRow } from '../../../db/schema.ts';
import { allEnabledNetworks } from '../networks/networks.service.ts';
import { findWalletByAddress, signerOf } from '../wallets/wallets.service.ts';
import { monitor } from './relayer-monitor.ts';
import { LeaseLost, type NetworkPass, type Pair, type PassContext } from './relayer-pass.ts';
import { reconcile } from './relayer-reconcile.ts';
import { broadcastQueued, promote } from './relayer-send.ts';
import * as repo from './transactions.repository.ts';

/**
 * The transaction relayer (DESIGN.md "The transaction relayer"). One instance drives each
 * (network, sender) pair at a time, under a lease; every write re-checks the lease epoch, so an
 * instance that lost its lease while paused cannot act on stale reads.
 *
 * Per pair, each pass:
 * 1. reconcile (on taking the lease, then periodically): raise the next nonce past nonces used
 *    outside the service, and fill nonce gaps with no-op self-transfers;
 * 2. monitor SUBMITTED rows: receipts of any signed version, confirmations, reorgs, fee bumps
 *    after `txResubmitBlockCount` blocks, re-broadcasts of dropped transactions, and rows whose
 *    nonce was consumed by another transaction (sent back to PENDING for a new nonce);
 * 3. broadcast QUEUED rows (the stored raw bytes: a crash between signing and sending re-sends
 *    the same transaction, never a second one);
 * 4. promote PENDING rows up to `maxConcurrentTxs` in flight: estimate gas, then in one database
 *    transaction take the nonce, sign, store the raw bytes and move the row to QUEUED.
 *
 * Rows are read into the variants of transaction-lifecycle.ts: each step sees the fields its
 * state guarantees (the database CHECK keeps rows to them), and dispatches states exhaustively.
 *
 * This class holds the loop, the leases and the per-process caches; the steps live beside it:
 * relayer-reconcile.ts (1), relayer-monitor.ts (2, reading through relayer-receipts.ts),
 * relayer-send.ts (3 and 4), relayer-sign.ts (signing), relayer-pass.ts (what they share).
 */
export interface RelayerOptions {
  /** Names this process in leases; unique per running instance. */
  instanceId: string;
  /** Default: the context's client of each network (tests put a faulty proxy in between). */
  clientFor?: (network: NetworkRow) => ChainClient;
  leaseSeconds?: number;
  pollMs?: number;
  reconcileEveryMs?: number;
}

export class Relayer {
  private readonly db: AppContext['db'];
  private readonly log: Logger;
  private readonly leaseSeconds: number;
  private readonly pollMs: number;
  private readonly reconcileEveryMs: number;
  private readonly reconciledAt = new Map<string, number>();
  private readonly rebroadcastAt = new Map<string, bigint>();
  /** When a network's node last failed eth_getBlockReceipts. */
  private readonly blockReceiptsFailedAt = new Map<number, number>();
  private readonly accounts = new Map<string, PrivateKeyAccount>();
  /** The head block each sender's monitor last looked at in full, by `network:address`. */
  private readonly monitoredHead = new Map<string, bigint>();
  /** Leases this instance holds, by `network:address`, as last taken or renewed. */
  private readonly leases = new Map<string, { epoch: string; renewedAt: number }>();
  private running: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  /** A poke that came during a pass: the next pass starts without waiting. */
  private poked = false;
  /** What the stages of a pass (relayer-reconcile, -monitor, -send) use of this instance. */
  private readonly pass: PassContext;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: RelayerOptions,
  ) {
    this.db = ctx.db;
    this.log = ctx.logger.child({ component: 'relayer', instance: options.instanceId });
    this.leaseSeconds = options.leaseSeconds ?? 15;
    this.pollMs = options.pollMs ?? 500;
    this.reconcileEveryMs = options.reconcileEveryMs ?? 30_000;
    this.pass = {
      db: this.db,
      deps: ctx,
      log: this.log,
      rebroadcastAt: this.rebroadcastAt,
      blockReceiptsFailedAt: this.blockReceiptsFailedAt,
      monitoredHead: this.monitoredHead,
      keepLease: (pair) => this.keepLease(pair),
      withLease: (pair, fn) => this.withLease(pair, fn),
    };
  }

  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.loop();
  }

  /** Asks for a pass now (new work was queued). */
  poke(): void {
    if (this.wake) this.wake();
    else this.poked = true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.running;
    this.running = undefined;
    this.leases.clear();
    this.monitoredHead.clear();
    await repo.releaseLeases(this.db, this.options.instanceId).catch(() => {});
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.tick();
      } catch (error) {
        this.log.warn({ err: error }, 'relayer pass failed');
      }
      if (this.stopping) break;
      if (this.poked) {
        this.poked = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** One pass over every sender with work on every enabled network. */
  async tick(): Promise<void> {
    const networks = await allEnabledNetworks(this.db);
    await Promise.all(
      networks.map(async (network) => {
        const senders = await repo.sendersWithWork(this.db, network.id);
        const shared: NetworkPass = { blocks: new Map() };
        await Promise.all(senders.map((address) => this.drive(network, address as Hex, shared)));
      }),
    );
  }

  private async drive(network: NetworkRow, address: Hex, shared: NetworkPass): Promise<void> {
    // A lease taken or renewed less than a third of its time ago is not written again: every
    // write checks it anyway (fencing), and keepLease renews it as the pass goes on.
    const leaseKey = `${network.id}:${address}`;
    let lease = this.leases.get(leaseKey);
    if (lease === undefined || Date.now() - lease.renewedAt >= (this.leaseSeconds * 1000) / 3) {
      const renewedAt = Date.now();
      const taken = await repo.acquireLease(
        this.db,
        network.id,
        address,
        this.options.instanceId,
        this.leaseSeconds,
      );
      if (taken === undefined) {
        this.leases.delete(leaseKey);
        return;
      }
      lease = { epoch: taken, renewedAt };
      this.leases.set(leaseKey, lease);
    }
    const epoch = lease.epoch;
    const wallet = await findWalletByAddress(this.db, address);
    if (!wallet) {
      this.log.error({ address }, 'transactions from an address the service has no wallet for');
      return;
    }
    const pair: Pair = {
      network,
      address,
      epoch,
      renewedAt: lease.renewedAt,
      client: this.clientFor(network),
      wallet,
      account: this.signer(wallet),
      shared,
    };
    const key = `${network.id}:${address}:${epoch}`;
    try {
      const last = this.reconciledAt.get(key);
      if (last === undefined || Date.now() - last > this.reconcileEveryMs) {
        await reconcile(this.pass, pair);
        this.reconciledAt.set(key, Date.now());
      }
      // Each step runs even when the one before failed on an RPC error: a failed receipt lookup
      // must not keep QUEUED rows (often the lowest nonces) from being sent, or the wallet jams.
      await this.step(pair, 'monitor', () => monitor(this.pass, pair));
      await this.step(pair, 'broadcast', () => broadcastQueued(this.pass, pair));
      await this.step(pair, 'promote', () => promote(this.pass, pair));
    } catch (error) {
      if (error instanceof LeaseLost) {
        this.leases.delete(leaseKey);
        this.log.info({ network: network.id, address }, 'lease lost; another instance drives this wallet');
        return;
      }
      const classified = classifyRpcError(error);
      this.log.warn(
        { network: network.id, address, err: error, kind: classified.kind },
        'relayer pass stopped early',
      );
    }
  }

  /** One step of a pass: an RPC failure ends this step only; LeaseLost ends the pass. */
  private async step(pair: Pair, name: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      if (error instanceof LeaseLost) throw error;
      const { kind, reason } = classifyRpcError(error);
      this.log.warn(
        { network: pair.network.id, address: pair.address, step: name, kind, reason },
        'relayer step failed',
      );
    }
  }

  /** The wallet's signer, its key decrypted once per process. */
  private signer(wallet: WalletRow): PrivateKeyAccount {
    const key = `${wallet.id}:${wallet.private_key}`;
    let account = this.accounts.get(key);
    if (!account) {
      account = signerOf(this.ctx.keyring, wallet);
      this.accounts.set(key, account);
    }
    return account;
  }

  private clientFor(network: NetworkRow): ChainClient {
    return this.options.clientFor
      ? this.options.clientFor(network)
      : this.ctx.chain.forNetwork({ id: network.id, url: network.config.url });
  }

  /**
   * Renews the lease once a third of it has gone by, or throws LeaseLost. Called as the pass makes
   * progress: a pass can outlast the lease (many rows, a slow or failing node), and without this
   * every write after `leaseSeconds` throws LeaseLost and the later steps never run. Never from a
   * timer: a pass stuck in a call that never returns must let its lease expire.
   */
  private async keepLease(pair: Pair): Promise<void> {
    if (Date.now() - pair.renewedAt < (this.leaseSeconds * 1000) / 3) return;
    const { network, address, epoch } = pair;
    if (
      !(await repo.renewLease(
        this.db,
        network.id,
        address,
        this.options.instanceId,
        epoch,
        this.leaseSeconds,
      ))
    ) {
      throw new LeaseLost();
    }
    pair.renewedAt = Date.now();
    this.leases.set(`${network.id}:${address}`, { epoch, renewedAt: pair.renewedAt });
  }

  /** Runs `fn` in a database transaction that holds the lease (fencing), or throws LeaseLost. */
  private async withLease<T>(pair: Pair, fn: (tx: Tx) => Promise<T>): Promise<T> {
    await this.keepLease(pair);
    return this.db.transaction().execute(async (tx) => {
      if (!(await repo.holdsLease(tx, pair.network.id, pair.address, this.options.instanceId, pair.epoch))) {
        throw new LeaseLost();
      }
      return fn(tx);
    });
  }
}
