import { sql } from 'kysely';
import type { Logger } from 'pino';
import { type Hex, isHex, keccak256 } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { bumpedFees, type Fees, marketFees } from '../../../chain/fees.ts';
import { type ChainClient, classifyRpcError, type Receipt } from '../../../chain/rpc.ts';
import type { AppContext } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { NetworkRow, WalletRow } from '../../../db/schema.ts';
import { assertNever } from '../../../lib/assert-never.ts';
import { mapLimit } from '../../../lib/concurrency.ts';
import { allEnabledNetworks } from '../networks/networks.service.ts';
import { findWalletByAddress, signerOf } from '../wallets/wallets.service.ts';
import { requestFunding } from './auto-fund.ts';
import {
  lifecycleIn,
  lifecycleOf,
  type PendingTransaction,
  type QueuedTransaction,
  type SubmittedTransaction,
  type TransactionIn,
  type TransactionLifecycle,
} from './transaction-lifecycle.ts';
import * as repo from './transactions.repository.ts';
import { emitSettledEvent, emitSettledEvents } from './transactions.service.ts';

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

class LeaseLost extends Error {}

const GAS_MARGIN_PERCENT = 20n;
const GAP_FILL_GAS = 21_000n;
const MAX_GAP_FILLS_PER_PASS = 100;
const TRANSIENT_BACKOFF_MS = 1_000;
const FUNDS_BACKOFF_MS = 5_000;
/** RPC calls in flight per wallet pass (receipts, broadcasts, estimates). */
const RPC_CONCURRENCY = 16;
/** Rows promoted (nonce, sign, store) in one database transaction. */
const PROMOTE_BATCH = 200;
/** Newest blocks whose receipts a pass reads (eth_getBlockReceipts), one call per block. */
const RECEIPT_BLOCKS = 16;
/**
 * Rows in flight per block read below which receipts are looked up one by one: a block's receipts
 * weigh far more than one receipt (every transaction of the block, with its logs; hosted nodes
 * bill them accordingly), so a wallet with a few transactions on a busy chain reads its own.
 */
const ROWS_PER_BLOCK_READ = 4;
/** After a node failed eth_getBlockReceipts, receipts are looked up one by one for this long. */
const BLOCK_RECEIPTS_OFF_MS = 60_000;

/** What a pass reads from a network once, whatever the number of its senders with work. */
interface NetworkPass {
  /** Receipts of whole blocks, by number. */
  blocks: Map<bigint, Promise<Receipt[] | null>>;
  /** Market fees for the rows promoted in this pass. */
  fees?: Promise<Fees>;
}

interface Pair {
  network: NetworkRow;
  address: Hex;
  epoch: string;
  /** When the lease was last taken or renewed (Date.now()). */
  renewedAt: number;
  client: ChainClient;
  wallet: WalletRow;
  account: PrivateKeyAccount;
  shared: NetworkPass;
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

  constructor(
    private readonly ctx: AppContext,
    private readonly options: RelayerOptions,
  ) {
    this.db = ctx.db;
    this.log = ctx.logger.child({ component: 'relayer', instance: options.instanceId });
    this.leaseSeconds = options.leaseSeconds ?? 15;
    this.pollMs = options.pollMs ?? 500;
    this.reconcileEveryMs = options.reconcileEveryMs ?? 30_000;
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
        await this.reconcile(pair);
        this.reconciledAt.set(key, Date.now());
      }
      // Each step runs even when the one before failed on an RPC error: a failed receipt lookup
      // must not keep QUEUED rows (often the lowest nonces) from being sent, or the wallet jams.
      await this.step(pair, 'monitor', () => this.monitor(pair));
      await this.step(pair, 'broadcast', () => this.broadcastQueued(pair));
      await this.step(pair, 'promote', () => this.promote(pair));
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
  private async withLease<T>(pair: Pair, fn: (tx: Executor) => Promise<T>): Promise<T> {
    await this.keepLease(pair);
    return this.db.transaction().execute(async (tx) => {
      if (!(await repo.holdsLease(tx, pair.network.id, pair.address, this.options.instanceId, pair.epoch))) {
        throw new LeaseLost();
      }
      return fn(tx);
    });
  }

  // 1. Reconcile -------------------------------------------------------------------------------

  private async reconcile(pair: Pair): Promise<void> {
    // Nonces below the node's pending nonce are taken (mined, or waiting in its pool).
    const chainPending = BigInt(await pair.client.nonce(pair.address, 'pending'));
    await this.withLease(pair, async (tx) => {
      const next = await repo.raiseNextNonce(tx, pair.network.id, pair.address, chainPending);
      if (next <= chainPending) return;
      const used = await repo.usedNonces(tx, pair.network.id, pair.address, chainPending, next);
      let filled = 0;
      for (let nonce = chainPending; nonce < next && filled < MAX_GAP_FILLS_PER_PASS; nonce++) {
        if (used.has(nonce.toString())) continue;
        await this.queueGapFill(tx, pair, nonce);
        filled++;
      }
      if (filled > 0)
        this.log.warn({ network: pair.network.id, address: pair.address, filled }, 'filled nonce gaps');
    });
  }

  /** A no-op self-transfer holding `nonce`, so the transactions after it are not stuck. */
  private async queueGapFill(tx: Executor, pair: Pair, nonce: bigint): Promise<void> {
    const fees = await marketFees(pair.client, pair.network.config.gasStrategy);
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
    await this.signAndQueue(tx, pair, lifecycleIn(row, ['PENDING']), nonce, GAP_FILL_GAS, fees);
  }

  // 2. Monitor ---------------------------------------------------------------------------------

  private async monitor(pair: Pair): Promise<void> {
    const head = await pair.client.blockNumber();
    // Every decision below follows a new block (a receipt, a depth, a block without the row): at
    // the head the last full look was at, there is nothing new to see (passes come faster than
    // blocks). A reorg at the same height is seen with the next block.
    const key = `${pair.network.id}:${pair.address}`;
    if (this.monitoredHead.get(key) === head) return;
    const submitted = await this.live(pair, 'SUBMITTED', 5000);
    if (submitted.length === 0) {
      this.monitoredHead.set(key, head);
      return;
    }
    // The nonce is read BEFORE the receipts, as of the newest block `confirmations` deep: a row
    // whose nonce is below it and that has no receipt after that read was not mined by us, so
    // giving it a new nonce cannot send it twice. Not 'latest': a reorg between the two reads
    // would drop our transaction (back into the pool) after the nonce counted it.
    const minedNonce = await this.confirmedNonce(pair, head);
    // Rows above a nonce the node has not been given yet (QUEUED) cannot be mined whatever their
    // fees: they are neither bumped nor re-sent until that nonce is sent.
    const gap = await repo.lowestNonce(this.db, pair.network.id, pair.address, 'QUEUED');
    const hashes = await repo.attemptHashes(
      this.db,
      submitted.map((r) => r.id),
    );
    // Receipts of the blocks mined since the rows were sent, one call per block, read after the
    // nonce like the lookups below. A row found there needs no call of its own; a row not found is
    // looked up by hash only when "no receipt" would make this pass act on it (re-nonce, re-send,
    // bump, reorg), so such decisions rest on a lookup of the row's own hashes, as always.
    const inBlocks = await this.receiptsInBlocks(pair, submitted, head);
    // Rows are independent: a failed lookup leaves its row to the next pass, the others go on.
    const receipts = await mapLimit(submitted, RPC_CONCURRENCY, async (row) => {
      const rowHashes = hashes.get(row.id) ?? [];
      if (inBlocks) {
        for (const hash of rowHashes) {
          const receipt = inBlocks.get(hash.toLowerCase());
          if (receipt) return receipt;
        }
        if (!this.actsWithoutReceipt(pair, row, head, minedNonce, gap)) return undefined;
      }
      return this.firstReceipt(pair, rowHashes).catch((error: unknown) => {
        this.log.debug({ id: row.id, err: error }, 'receipt lookup failed; next pass');
        return undefined;
      });
    });
    const canonical = new Map<bigint, Promise<Hex | null>>();
    const blockHash = (number: bigint) => {
      let hash = canonical.get(number);
      if (!hash) {
        hash = pair.client.blockHash(number);
        canonical.set(number, hash);
      }
      return hash;
    };
    const completions: repo.Completion[] = [];
    await mapLimit(submitted, RPC_CONCURRENCY, async (row, i) => {
      const receipt = receipts[i];
      if (receipt === undefined) return;
      try {
        await this.keepLease(pair);
        const completion = await this.settle(
          pair,
          row,
          receipt,
          head,
          minedNonce,
          blockHash,
          gap !== undefined && row.nonce > gap,
        );
        if (completion) completions.push(completion);
      } catch (error) {
        if (error instanceof LeaseLost) throw error;
        this.log.debug({ id: row.id, err: error }, 'monitoring a transaction failed; next pass');
      }
    });
    await this.complete(pair, completions);
    this.monitoredHead.set(key, head);
  }

  /**
   * Settles the rows whose receipt is final, all in one database transaction: each row still
   * SUBMITTED moves to COMPLETED with its `transaction_settled` job and event.
   */
  private async complete(pair: Pair, completions: repo.Completion[]): Promise<void> {
    if (completions.length === 0) return;
    await this.withLease(pair, async (tx) => {
      const settled = await repo.completeSubmitted(tx, completions, new Date());
      await repo.queueSettledJobs(tx, settled);
      await emitSettledEvents(tx, settled);
    });
    for (const { id } of completions) this.rebroadcastAt.delete(id);
  }

  /** Whether a row with no receipt would be acted on by `settle` this pass (not just waited for). */
  private actsWithoutReceipt(
    pair: Pair,
    row: SubmittedTransaction,
    head: bigint,
    minedNonce: bigint,
    gap: bigint | undefined,
  ): boolean {
    if (row.mined !== null || minedNonce > row.nonce) return true;
    if (gap !== undefined && row.nonce > gap) return false;
    return (
      this.resubmitDue(pair, row, head) ||
      (head > row.submittedBlock + 1n && this.rebroadcastAt.get(row.id) !== head)
    );
  }

  /**
   * Receipts (by lowercase hash) of the blocks the rows can have been mined in since they were
   * sent (the newest RECEIPT_BLOCKS at most), or undefined when the node cannot say or the rows are
   * too few to be worth the blocks: then every row is looked up by hash.
   */
  private async receiptsInBlocks(
    pair: Pair,
    rows: SubmittedTransaction[],
    head: bigint,
  ): Promise<Map<string, Receipt> | undefined> {
    const failedAt = this.blockReceiptsFailedAt.get(pair.network.id);
    if (failedAt !== undefined && Date.now() - failedAt < BLOCK_RECEIPTS_OFF_MS) return undefined;
    let from = head + 1n;
    for (const row of rows) {
      // A broadcast is recorded with the head read before it: it is mined in a later block.
      const first = row.mined ? row.mined.number : row.submittedBlock + 1n;
      if (first < from) from = first;
    }
    if (from <= head - BigInt(RECEIPT_BLOCKS)) from = head - BigInt(RECEIPT_BLOCKS) + 1n;
    const numbers: bigint[] = [];
    for (let n = from; n <= head; n++) numbers.push(n);
    // Blocks another sender of the network read in this pass come free.
    const toRead = numbers.filter((n) => !pair.shared.blocks.has(n)).length;
    if (toRead * ROWS_PER_BLOCK_READ > rows.length) return undefined;
    const byHash = new Map<string, Receipt>();
    try {
      const blocks = await mapLimit(numbers, RPC_CONCURRENCY, (n) => {
        let receipts = pair.shared.blocks.get(n);
        if (!receipts) {
          receipts = pair.client.blockReceipts(n);
          pair.shared.blocks.set(n, receipts);
        }
        return receipts;
      });
      for (const receipts of blocks) {
        for (const receipt of receipts ?? []) byHash.set(receipt.transactionHash.toLowerCase(), receipt);
      }
    } catch (error) {
      this.blockReceiptsFailedAt.set(pair.network.id, Date.now());
      this.log.debug({ network: pair.network.id, err: error }, 'block receipts failed; receipts one by one');
      return undefined;
    }
    return byHash;
  }

  /** What one SUBMITTED row needs, given its receipt (null: none on chain). */
  private async settle(
    pair: Pair,
    row: SubmittedTransaction,
    receipt: Receipt | null,
    head: bigint,
    minedNonce: bigint,
    blockHash: (number: bigint) => Promise<Hex | null>,
    behindGap: boolean,
  ): Promise<repo.Completion | undefined> {
    if (receipt) {
      return this.onReceipt(pair, row, receipt, head, blockHash);
    }
    if (row.mined !== null) {
      // Mined once, gone now: a reorg dropped it. Record that and send the same bytes again.
      await this.withLease(pair, (tx) =>
        repo.updateTransaction(tx, row.id, {
          mined_block_number: null,
          mined_block_hash: null,
          on_chain_status: null,
          submitted_block: head.toString(),
        }),
      );
      this.log.warn({ id: row.id, hash: row.hash }, 'transaction dropped by a reorg; re-sending');
      await this.rebroadcast(pair, row.id, row.raw);
    } else if (minedNonce > row.nonce) {
      await this.renonce(pair, row, minedNonce);
    } else if (behindGap) {
      // Waits for the lower nonce to be sent.
    } else if (this.resubmitDue(pair, row, head)) {
      await this.bump(pair, row, head);
    } else if (head > row.submittedBlock + 1n && this.rebroadcastAt.get(row.id) !== head) {
      // Not mined after a block: the node may have dropped it (restart, lost send). Same bytes.
      this.rebroadcastAt.set(row.id, head);
      await this.rebroadcast(pair, row.id, row.raw);
    }
    return undefined;
  }

  /** The wallet's nonce as of the newest block that is `confirmations` deep (final). */
  private async confirmedNonce(pair: Pair, head: bigint): Promise<bigint> {
    const depth = BigInt(Math.max(1, pair.network.config.confirmations)) - 1n;
    return BigInt(await pair.client.nonce(pair.address, head > depth ? head - depth : 0n));
  }

  /** The receipt of the first of a row's signed versions (stored hashes, newest first) that has one. */
  private async firstReceipt(pair: Pair, hashes: string[]): Promise<Receipt | null> {
    for (const hash of hashes) {
      if (!isHex(hash)) throw new Error(`a stored attempt hash is not hex: ${hash}`);
      const receipt = await pair.client.receipt(hash);
      if (receipt) return receipt;
    }
    return null;
  }

  private async findReceipt(pair: Pair, id: string): Promise<Receipt | null> {
    const hashes = await repo.attemptHashes(this.db, [id]);
    return this.firstReceipt(pair, hashes.get(id) ?? []);
  }

  private async onReceipt(
    pair: Pair,
    row: SubmittedTransaction,
    receipt: Receipt,
    head: bigint,
    blockHash: (number: bigint) => Promise<Hex | null>,
  ): Promise<repo.Completion | undefined> {
    const status = receipt.status === 'success' ? 'SUCCESS' : 'FAILURE';
    const minedFields = {
      tx_hash: receipt.transactionHash,
      mined_block_number: receipt.blockNumber.toString(),
      mined_block_hash: receipt.blockHash,
      on_chain_status: status,
      gas_used: receipt.gasUsed.toString(),
      effective_gas_price: receipt.effectiveGasPrice.toString(),
      fee: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
      contract_address: receipt.contractAddress,
    };
    const depth = head - receipt.blockNumber + 1n;
    if (depth < BigInt(pair.network.config.confirmations)) {
      if (row.mined?.hash !== receipt.blockHash) {
        await this.withLease(pair, (tx) => repo.updateTransaction(tx, row.id, minedFields));
      }
      return undefined;
    }
    // Deep enough; final only if its block is still the canonical one at that height. The pass
    // settles its final rows together (complete).
    if ((await blockHash(receipt.blockNumber)) !== receipt.blockHash) return undefined;
    return {
      id: row.id,
      txHash: receipt.transactionHash,
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      status,
      gasUsed: receipt.gasUsed,
      effectiveGasPrice: receipt.effectiveGasPrice,
      contractAddress: receipt.contractAddress,
    };
  }

  private resubmitDue(pair: Pair, row: SubmittedTransaction, head: bigint): boolean {
    const blocks = pair.network.config.txResubmitBlockCount;
    return blocks !== null && head - row.submittedBlock >= BigInt(blocks);
  }

  /** The nonce went to another transaction (sent outside the service): queue again with a new one. */
  private async renonce(
    pair: Pair,
    row: QueuedTransaction | SubmittedTransaction,
    minedNonce: bigint,
  ): Promise<void> {
    // Last look: a receipt of ours may have arrived since; then it is ours that used the nonce.
    if (await this.findReceipt(pair, row.id)) return;
    await this.withLease(pair, async (tx) => {
      const current = await this.findForUpdate(tx, row.id);
      if (current === undefined || !isSigned(current)) return;
      await repo.raiseNextNonce(tx, pair.network.id, pair.address, minedNonce);
      await repo.updateTransaction(tx, row.id, {
        state: 'PENDING',
        nonce: null,
        raw_tx: null,
        tx_hash: null,
        submitted_at: null,
        submitted_block: null,
        last_error: `nonce ${row.nonce} was used by another transaction of ${pair.address}; queued again`,
        next_attempt_at: new Date(),
      });
    });
    this.log.warn(
      { id: row.id, nonce: row.nonce.toString() },
      'nonce consumed outside the service; transaction re-queued',
    );
  }

  /** Re-signs with the same nonce and higher fees, and sends the new version. */
  private async bump(pair: Pair, row: QueuedTransaction | SubmittedTransaction, head: bigint): Promise<void> {
    const market = await marketFees(pair.client, pair.network.config.gasStrategy);
    const next = bumpedFees(row.fees, market, pair.network.config.gasStrategy);
    if (!next) {
      this.log.warn({ id: row.id }, 'fees are at the gas strategy cap; waiting without resubmitting');
      await this.withLease(pair, (tx) =>
        repo.updateTransaction(tx, row.id, {
          submitted_block: head.toString(),
          last_error: `fees are at the gas strategy cap (maxFeePerGas ${pair.network.config.gasStrategy.maxFeePerGas} wei); waiting for lower fees or a higher cap`,
        }),
      );
      return;
    }
    const resigned = await this.withLease(pair, async (tx) => {
      const current = await this.findForUpdate(tx, row.id);
      if (current === undefined || !isSigned(current)) return undefined;
      const signed = await this.sign(pair, current, current.nonce, current.gasLimit, next);
      await repo.insertAttempt(tx, {
        transaction_id: row.id,
        tx_hash: signed.hash,
        raw_tx: signed.raw,
        nonce: current.nonce.toString(),
        ...feeColumns(next),
      });
      const attempt = current.attempts + 1;
      await repo.updateTransaction(tx, row.id, {
        raw_tx: signed.raw,
        tx_hash: signed.hash,
        ...feeColumns(next),
        attempts: attempt,
        submitted_block: head.toString(),
      });
      return { attempt, raw: signed.raw };
    });
    if (resigned) {
      this.log.info({ id: row.id, attempt: resigned.attempt }, 'resubmitting with higher fees');
      await this.rebroadcast(pair, row.id, resigned.raw);
    }
  }

  private async rebroadcast(pair: Pair, id: string, raw: Hex): Promise<void> {
    try {
      await pair.client.sendRawTransaction(raw);
    } catch (error) {
      const { kind, reason } = classifyRpcError(error);
      // Already known, or the nonce already used: the monitor settles it from the chain.
      if (kind !== 'ambiguous') this.log.debug({ id, kind, reason }, 're-broadcast refused');
    }
  }

  // 3. Broadcast -------------------------------------------------------------------------------

  private async broadcastQueued(pair: Pair): Promise<void> {
    const due = await this.live(pair, 'QUEUED', 5000);
    if (due.length === 0) return;
    const head = await pair.client.blockNumber();
    // Sent concurrently: a node keeps a higher nonce waiting until the lower one arrives.
    const failures: { row: QueuedTransaction; error: unknown }[] = [];
    const sent: string[] = [];
    await mapLimit(due, RPC_CONCURRENCY, async (row) => {
      try {
        await pair.client.sendRawTransaction(row.raw);
        sent.push(row.id);
      } catch (error) {
        failures.push({ row, error });
      }
    });
    await this.markSent(pair, sent, head);
    for (const { row, error } of failures.sort((a, b) => Number(a.row.nonce - b.row.nonce))) {
      await this.onBroadcastError(pair, row, error, head).catch((failure: unknown) => {
        if (failure instanceof LeaseLost) throw failure;
        this.log.debug({ id: row.id, err: failure }, 'handling a broadcast error failed; next pass');
      });
    }
  }

  private async markSubmitted(pair: Pair, id: string, head: bigint): Promise<void> {
    await this.markSent(pair, [id], head);
  }

  /**
   * QUEUED → SUBMITTED after a broadcast. Its commit does not wait for the disk flush: a database
   * crash that loses it leaves the rows QUEUED, and their stored bytes are sent again (the same
   * transaction), so nothing depends on it being durable.
   */
  private async markSent(pair: Pair, ids: string[], head: bigint): Promise<void> {
    if (ids.length === 0) return;
    await this.withLease(pair, async (tx) => {
      await sql`SET LOCAL synchronous_commit = off`.execute(tx);
      await repo.markSubmitted(tx, ids, head);
    });
  }

  private async onBroadcastError(
    pair: Pair,
    row: QueuedTransaction,
    error: unknown,
    head: bigint,
  ): Promise<void> {
    const { kind, reason } = classifyRpcError(error);
    switch (kind) {
      case 'ambiguous': {
        // The chain may have it already: known to the node, or the nonce is taken.
        const minedNonce = await this.confirmedNonce(pair, await pair.client.blockNumber());
        if (await this.findReceipt(pair, row.id)) return this.markSubmitted(pair, row.id, head);
        if (minedNonce > row.nonce) return this.renonce(pair, row, minedNonce);
        return this.markSubmitted(pair, row.id, head);
      }
      case 'underpriced':
        return this.bump(pair, row, head);
      case 'funds':
        await requestFunding(this.db, pair.network, pair.wallet);
        return this.backoff(pair, row.id, reason, FUNDS_BACKOFF_MS);
      case 'deterministic':
        return this.cancel(pair, row.id, reason);
      case 'transient':
        return this.backoff(pair, row.id, reason, TRANSIENT_BACKOFF_MS);
    }
  }

  private async backoff(pair: Pair, id: string, reason: string, ms: number): Promise<void> {
    await this.withLease(pair, (tx) =>
      repo.updateTransaction(tx, id, { last_error: reason, next_attempt_at: new Date(Date.now() + ms) }),
    );
  }

  /** Ends a transaction that can never succeed; a nonce it held is filled by a no-op. */
  private async cancel(pair: Pair, id: string, reason: string): Promise<void> {
    await this.withLease(pair, async (tx) => {
      const current = await this.findForUpdate(tx, id);
      if (current === undefined) return;
      switch (current.state) {
        case 'PENDING':
        case 'QUEUED':
          break;
        // Sent, or settled already: the chain decides (or decided).
        case 'SUBMITTED':
        case 'COMPLETED':
        case 'CANCELLED':
          return;
        default:
          return assertNever(current, 'transaction state');
      }
      const settled = await repo.updateTransaction(tx, id, {
        state: 'CANCELLED',
        failure_reason: reason,
        completed_at: new Date(),
      });
      await repo.queueSettledJob(tx, current);
      await emitSettledEvent(tx, settled);
      if (current.state === 'QUEUED' && current.type !== 'NONCE_GAP_FILL') {
        await this.queueGapFill(tx, pair, current.nonce);
      }
    });
    this.log.warn({ id, reason }, 'transaction cancelled');
  }

  // 4. Promote ---------------------------------------------------------------------------------

  private async promote(pair: Pair): Promise<void> {
    const inFlight = await repo.countInFlight(this.db, pair.network.id, pair.address);
    const room = Math.min(pair.network.config.maxConcurrentTxs - inFlight, PROMOTE_BATCH);
    if (room <= 0) return;
    const pending = await this.live(pair, 'PENDING', room);
    if (pending.length === 0) return;
    pair.shared.fees ??= marketFees(pair.client, pair.network.config.gasStrategy);
    const fees = await pair.shared.fees;
    const gas = await mapLimit(pending, RPC_CONCURRENCY, (row) => this.gasFor(pair, row));
    const ready = pending.filter((_, i) => gas[i] !== undefined);
    if (ready.length === 0) return;
    const gasById = new Map(pending.map((row, i) => [row.id, gas[i]]));
    // One database transaction takes the nonces of the whole batch, in creation order, and stores
    // every signed transaction before any is broadcast.
    const promoted = await this.withLease(pair, async (tx) => {
      const rows = (
        await repo.lockPending(
          tx,
          ready.map((r) => r.id),
        )
      ).map((row) => lifecycleIn(row, ['PENDING']));
      if (rows.length === 0) return 0;
      let nonce = await repo.findNextNonceForUpdate(tx, pair.network.id, pair.address);
      if (nonce === undefined) {
        // The wallet's first transaction on this network: it starts at the node's pending nonce.
        const chainPending = BigInt(await pair.client.nonce(pair.address, 'pending'));
        await repo.raiseNextNonce(tx, pair.network.id, pair.address, chainPending);
        nonce = (await repo.findNextNonceForUpdate(tx, pair.network.id, pair.address))!;
      }
      await this.signAndQueueAll(
        tx,
        pair,
        rows.map((row, i) => ({ row, nonce: nonce + BigInt(i), gas: gasById.get(row.id)! })),
        fees,
      );
      return rows.length;
    });
    if (promoted > 0) await this.broadcastQueued(pair);
  }

  /** Gas limit of a row (estimated once, with a margin); undefined when it cannot be sent now. */
  private async gasFor(pair: Pair, row: PendingTransaction): Promise<bigint | undefined> {
    if (row.gasLimit !== null) return row.gasLimit;
    try {
      const estimate = await pair.client.estimateGas({
        from: pair.address,
        to: row.to,
        data: row.data,
        value: row.value,
      });
      return (estimate * (100n + GAS_MARGIN_PERCENT)) / 100n;
    } catch (error) {
      const { kind, reason } = classifyRpcError(error);
      if (kind === 'funds') {
        await requestFunding(this.db, pair.network, pair.wallet);
        await this.backoff(pair, row.id, reason, FUNDS_BACKOFF_MS);
      } else if (kind === 'deterministic') {
        await this.cancel(pair, row.id, reason);
      } else {
        await this.backoff(pair, row.id, reason, TRANSIENT_BACKOFF_MS);
      }
      return undefined;
    }
  }

  private signAndQueue(
    tx: Executor,
    pair: Pair,
    row: PendingTransaction,
    nonce: bigint,
    gas: bigint,
    fees: Fees,
  ): Promise<void> {
    return this.signAndQueueAll(tx, pair, [{ row, nonce, gas }], fees);
  }

  /**
   * Signs rows with the nonces given (consecutive, ascending) and stores them QUEUED, the raw
   * bytes before any broadcast: one statement for the attempts, one for the rows, one for the
   * wallet's next nonce (after the last one), in the caller's transaction.
   */
  private async signAndQueueAll(
    tx: Executor,
    pair: Pair,
    batch: readonly { row: PendingTransaction; nonce: bigint; gas: bigint }[],
    fees: Fees,
  ): Promise<void> {
    if (batch.length === 0) return;
    const fee = feeColumns(fees);
    const signed: repo.SignedRow[] = [];
    for (const { row, nonce, gas } of batch) {
      const { raw, hash } = await this.sign(pair, row, nonce, gas, fees);
      signed.push({
        id: row.id,
        nonce,
        gasLimit: gas,
        raw,
        hash,
        maxFeePerGas: fee.max_fee_per_gas,
        maxPriorityFeePerGas: fee.max_priority_fee_per_gas,
        gasPrice: fee.gas_price,
        attempts: row.attempts + 1,
      });
    }
    await repo.insertAttempts(
      tx,
      signed.map((s) => ({
        transaction_id: s.id,
        tx_hash: s.hash,
        raw_tx: s.raw,
        nonce: s.nonce.toString(),
        ...fee,
      })),
    );
    await repo.setNextNonce(tx, pair.network.id, pair.address, signed[signed.length - 1]!.nonce + 1n);
    await repo.queueSigned(tx, signed, new Date());
  }

  private async sign(
    pair: Pair,
    row: Pick<PendingTransaction, 'to' | 'data' | 'value'>,
    nonce: bigint,
    gas: bigint,
    fees: Fees,
  ): Promise<{ raw: Hex; hash: Hex }> {
    const base = {
      ...(row.to !== null && { to: row.to }),
      data: row.data,
      value: row.value,
      gas,
      nonce: Number(nonce),
    };
    const raw =
      fees.type === 'eip1559'
        ? await pair.account.signTransaction({
            ...base,
            type: 'eip1559',
            chainId: pair.network.id,
            maxFeePerGas: fees.maxFeePerGas,
            maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
          })
        : await pair.account.signTransaction({
            ...base,
            type: 'legacy',
            gasPrice: fees.gasPrice,
            // Without eip155 the signature carries no chain id (pre-EIP-155 networks).
            ...(pair.network.config.eip155 && { chainId: pair.network.id }),
          });
    return { raw, hash: keccak256(raw) };
  }

  // Reads ---------------------------------------------------------------------------------------

  /** The sender's rows in `state` that are due, as their lifecycle variant. */
  private async live<S extends 'PENDING' | 'QUEUED' | 'SUBMITTED'>(
    pair: Pair,
    state: S,
    limit: number,
  ): Promise<TransactionIn<S>[]> {
    const rows = await repo.liveTransactions(this.db, pair.network.id, pair.address, state, limit);
    return rows.map((row) => lifecycleIn(row, [state]));
  }

  private async findForUpdate(tx: Executor, id: string) {
    const row = await repo.findTransactionForUpdate(tx, id);
    return row === undefined ? undefined : lifecycleOf(row);
  }
}

/** QUEUED or SUBMITTED: signed with a nonce, not settled (a bump re-signs it, a renonce frees it). */
function isSigned(
  transaction: TransactionLifecycle,
): transaction is QueuedTransaction | SubmittedTransaction {
  switch (transaction.state) {
    case 'QUEUED':
    case 'SUBMITTED':
      return true;
    case 'PENDING':
    case 'COMPLETED':
    case 'CANCELLED':
      return false;
    default:
      return assertNever(transaction, 'transaction state');
  }
}

function feeColumns(fees: Fees) {
  return fees.type === 'eip1559'
    ? {
        max_fee_per_gas: fees.maxFeePerGas.toString(),
        max_priority_fee_per_gas: fees.maxPriorityFeePerGas.toString(),
        gas_price: null,
      }
    : { max_fee_per_gas: null, max_priority_fee_per_gas: null, gas_price: fees.gasPrice.toString() };
}
