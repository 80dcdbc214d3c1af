import {
  BaseError,
  createPublicClient,
  type Hex,
  HttpRequestError,
  http,
  type PublicClient,
  TimeoutError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from 'viem';
import { printable } from '../lib/text.ts';

/**
 * The JSON-RPC calls the service makes, behind one small interface so the relayer's logic is
 * independent of the client library. Retries are the caller's: the transport never retries, so
 * every failure is seen, classified and handled once (see classifyRpcError).
 */
export interface ChainClient {
  readonly url: string;
  chainId(): Promise<number>;
  blockNumber(): Promise<bigint>;
  /** Base fee of the latest block, or null on a chain without EIP-1559. */
  latestBaseFee(): Promise<bigint | null>;
  blockHash(number: bigint): Promise<Hex | null>;
  gasPrice(): Promise<bigint>;
  maxPriorityFeePerGas(): Promise<bigint>;
  /** Transactions sent from `address` as of the latest block, the pool ('pending'), or a block. */
  nonce(address: Hex, at: 'latest' | 'pending' | bigint): Promise<number>;
  balance(address: Hex): Promise<bigint>;
  estimateGas(tx: { from: Hex; to: Hex | null; data: Hex; value: bigint }): Promise<bigint>;
  sendRawTransaction(raw: Hex): Promise<Hex>;
  receipt(hash: Hex): Promise<Receipt | null>;
  /**
   * Every receipt of one block (eth_getBlockReceipts), or null when the node has no such block
   * yet. Throws on a node without the method.
   */
  blockReceipts(number: bigint): Promise<Receipt[] | null>;
  call(tx: { to: Hex; data: Hex; from?: Hex }): Promise<Hex>;
  /** The underlying viem client, for typed contract reads. */
  readonly viem: PublicClient;
}

export interface Receipt {
  transactionHash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  status: 'success' | 'reverted';
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  contractAddress: Hex | null;
  logs: readonly { address: Hex; topics: readonly Hex[]; data: Hex }[];
}

export function createChainClient(url: string, options: { timeoutMs?: number } = {}): ChainClient {
  const client = createPublicClient({
    transport: http(url, { retryCount: 0, timeout: options.timeoutMs ?? 10_000 }),
  }) as PublicClient;
  return {
    url,
    viem: client,
    chainId: () => client.getChainId(),
    blockNumber: () => client.getBlockNumber({ cacheTime: 0 }),
    async latestBaseFee() {
      const block = await client.getBlock({ blockTag: 'latest' });
      return block.baseFeePerGas ?? null;
    },
    async blockHash(number) {
      const block = await client.getBlock({ blockNumber: number }).catch((error: unknown) => {
        if (error instanceof BaseError && error.name === 'BlockNotFoundError') return null;
        throw error;
      });
      return block?.hash ?? null;
    },
    gasPrice: () => client.getGasPrice(),
    maxPriorityFeePerGas: () => client.estimateMaxPriorityFeePerGas(),
    nonce: (address, at) =>
      client.getTransactionCount(
        typeof at === 'bigint' ? { address, blockNumber: at } : { address, blockTag: at },
      ),
    balance: (address) => client.getBalance({ address }),
    estimateGas: (tx) =>
      client.estimateGas({ account: tx.from, ...(tx.to && { to: tx.to }), data: tx.data, value: tx.value }),
    sendRawTransaction: (raw) => client.sendRawTransaction({ serializedTransaction: raw }),
    async receipt(hash) {
      try {
        return toReceipt(await client.getTransactionReceipt({ hash }));
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) return null;
        throw error;
      }
    },
    async blockReceipts(number) {
      try {
        return (await client.getBlockReceipts({ blockNumber: number })).map(toReceipt);
      } catch (error) {
        if (error instanceof BaseError && error.name === 'BlockNotFoundError') return null;
        throw error;
      }
    },
    async call(tx) {
      const result = await client.call({ to: tx.to, data: tx.data, ...(tx.from && { account: tx.from }) });
      return result.data ?? '0x';
    },
  };
}

function toReceipt(r: TransactionReceipt): Receipt {
  return {
    transactionHash: r.transactionHash,
    blockNumber: r.blockNumber,
    blockHash: r.blockHash,
    status: r.status,
    gasUsed: r.gasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    contractAddress: r.contractAddress ?? null,
    logs: r.logs,
  };
}

/**
 * How the relayer treats a failed RPC call:
 * - transient: the node or the network failed (timeouts, 5xx, 429, resets); retry with backoff,
 *   never fail a transaction for it;
 * - ambiguous: the answer says the chain may already have it (nonce too low, already known,
 *   replacement underpriced); reconcile against the chain;
 * - underpriced: the fee is below what the chain takes now; re-sign with higher fees;
 * - funds: the sender cannot pay; wait for funds;
 * - deterministic: the transaction itself is wrong (reverts, invalid); fail it with the reason.
 */
export type RpcErrorKind = 'transient' | 'ambiguous' | 'underpriced' | 'funds' | 'deterministic';

export interface ClassifiedRpcError {
  kind: RpcErrorKind;
  reason: string;
}

const AMBIGUOUS = [
  /nonce too low/i,
  /already known/i,
  /known transaction/i,
  /replacement transaction underpriced/i,
  /nonce has already been used/i,
  /transaction already imported/i,
];
const UNDERPRICED = [
  /max fee per gas less than block base fee/i,
  /fee cap less than block base fee/i,
  /transaction underpriced/i,
  /feecap.*below/i,
];
const FUNDS = [/insufficient funds/i, /insufficient balance/i];
const TRANSIENT_TEXT = [
  /timeout/i,
  /timed out/i,
  /ECONNRESET/i,
  /ECONNREFUSED/i,
  /socket hang up/i,
  /fetch failed/i,
  /rate limit/i,
  /too many requests/i,
  /header not found/i,
  /nonce too high/i,
];

export function classifyRpcError(error: unknown): ClassifiedRpcError {
  const reason = readableReason(error);
  // HTTP-level failure or no answer in time: the node did not answer the JSON-RPC call at all
  // (5xx, 429, reset, timeout), whatever call it was wrapped in.
  if (
    error instanceof BaseError &&
    error.walk((e) => e instanceof TimeoutError || e instanceof HttpRequestError)
  ) {
    return { kind: 'transient', reason };
  }
  const text = fullText(error);
  // A revert is the contract's answer, and its reason is the contract's own text: "insufficient
  // balance" there is not the node saying the sender cannot pay. Checked before the node's words.
  if (/revert/i.test(text)) return { kind: 'deterministic', reason };
  if (AMBIGUOUS.some((r) => r.test(text))) return { kind: 'ambiguous', reason };
  if (UNDERPRICED.some((r) => r.test(text))) return { kind: 'underpriced', reason };
  if (FUNDS.some((r) => r.test(text))) return { kind: 'funds', reason };
  if (TRANSIENT_TEXT.some((r) => r.test(text))) return { kind: 'transient', reason };
  if (
    /revert/i.test(text) ||
    /invalid/i.test(text) ||
    /intrinsic gas too low/i.test(text) ||
    /exceeds block gas limit/i.test(text)
  ) {
    return { kind: 'deterministic', reason };
  }
  // Anything not recognised is treated as the node's fault: retried, never a lost transaction.
  return { kind: 'transient', reason };
}

function fullText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    if (current instanceof Error) {
      parts.push(current.message);
      if (current instanceof BaseError && current.details) parts.push(current.details);
      current = (current as { cause?: unknown }).cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(' | ');
}

/**
 * One line a person can read: the revert reason or the node's message, not a stack. Control
 * characters are replaced (a node may echo raw revert data, NUL bytes included, which a
 * PostgreSQL text column refuses).
 */
export function readableReason(error: unknown): string {
  return printable(rawReason(error)).slice(0, 500);
}

function rawReason(error: unknown): string {
  if (error instanceof BaseError) {
    const revert = error.walk((e) => e instanceof BaseError && e.name === 'ContractFunctionRevertedError') as
      | (BaseError & { reason?: string })
      | null;
    if (revert?.reason) return `reverted: ${revert.reason}`;
    const detail = error.details && error.details !== error.shortMessage ? `: ${error.details}` : '';
    return `${error.shortMessage}${detail}`;
  }
  return error instanceof Error ? error.message : String(error);
}
