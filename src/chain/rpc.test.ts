import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  concat,
  encodeErrorResult,
  type Hex,
  HttpRequestError,
  InternalRpcError,
  InvalidInputRpcError,
  keccak256,
  LimitExceededRpcError,
  RpcRequestError,
  size,
  TimeoutError,
  TransactionRejectedRpcError,
  toHex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type DevChain, startDevChain } from './dev-chain.ts';
import {
  type ChainClient,
  classifyRpcError,
  createChainClient,
  type RpcErrorKind,
  readableReason,
} from './rpc.ts';

const url = 'http://127.0.0.1:8545';
const body = { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: ['0x02'] };

/** An RpcRequestError as viem's http transport builds it from a JSON-RPC error answer. */
function rpcError(code: number, message: string, data?: Hex): RpcRequestError {
  return new RpcRequestError({ body, error: { code, message, ...(data && { data }) }, url });
}

/** Error(string) revert data, as `require(false, reason)` returns it. */
function revertData(reason: string): Hex {
  return encodeErrorResult({
    abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string', name: 'message' }] }],
    errorName: 'Error',
    args: [reason],
  });
}

function assertKind(error: unknown, kind: RpcErrorKind): void {
  const classified = classifyRpcError(error);
  assert.equal(classified.kind, kind, `${classified.reason} → ${classified.kind}, expected ${kind}`);
  assert.ok(classified.reason.length > 0 && classified.reason.length <= 500, 'a readable reason');
  assert.ok(!/\n\s+at /.test(classified.reason), 'no stack trace in the reason');
}

describe('classifyRpcError: viem error objects', () => {
  it('HTTP failures, timeouts and resets are transient', () => {
    assertKind(new HttpRequestError({ url, status: 500, body }), 'transient');
    assertKind(new HttpRequestError({ url, status: 502, details: 'Bad Gateway' }), 'transient');
    assertKind(new HttpRequestError({ url, status: 429, details: 'Too Many Requests' }), 'transient');
    assertKind(new TimeoutError({ body, url }), 'transient');
    const reset = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    });
    assertKind(new HttpRequestError({ url, body, cause: reset }), 'transient');
    assertKind(reset, 'transient');
    assertKind(new Error('socket hang up'), 'transient');
  });

  it('a rate-limit answer in a JSON-RPC error body (HTTP 429) is transient', () => {
    const answer = new RpcRequestError({
      body,
      error: { code: -32005, message: 'Too Many Requests: rate limit exceeded' },
      status: 429,
      url,
    });
    assertKind(answer, 'transient');
    assertKind(new LimitExceededRpcError(answer), 'transient');
  });

  it('answers that say the chain may have the transaction already are ambiguous', () => {
    for (const message of [
      'nonce too low',
      'nonce too low: next nonce 5, tx nonce 4',
      'already known',
      'transaction already imported',
      'replacement transaction underpriced',
      'known transaction: 0xabc',
    ]) {
      assertKind(rpcError(-32000, message), 'ambiguous');
      // viem wraps the answer in a class chosen by its code.
      assertKind(new InvalidInputRpcError(rpcError(-32000, message)), 'ambiguous');
      assertKind(new TransactionRejectedRpcError(rpcError(-32003, message)), 'ambiguous');
    }
  });

  it('fees below what the chain takes are underpriced', () => {
    for (const message of [
      'max fee per gas less than block base fee',
      'max fee per gas less than block base fee: address 0x.., maxFeePerGas: 3, baseFee: 7',
      'transaction underpriced',
      'fee cap less than block base fee',
    ]) {
      assertKind(new TransactionRejectedRpcError(rpcError(-32003, message)), 'underpriced');
    }
  });

  it('a sender that cannot pay is funds', () => {
    assertKind(rpcError(-32000, 'insufficient funds for gas * price + value'), 'funds');
    assertKind(
      new InvalidInputRpcError(
        rpcError(-32000, 'insufficient funds for gas * price + value: have 0 want 21000'),
      ),
      'funds',
    );
  });

  it('an execution revert is deterministic, with the reason', () => {
    const error = rpcError(3, 'execution reverted: Ownable: caller is not the owner', revertData('x'));
    assertKind(error, 'deterministic');
    assert.match(classifyRpcError(error).reason, /caller is not the owner/);
    assertKind(rpcError(-32000, 'execution reverted'), 'deterministic');
    assertKind(rpcError(-32000, 'intrinsic gas too low'), 'deterministic');
  });

  it('a revert is deterministic whatever words its reason uses', () => {
    // A contract's own revert string must not be read as the node's answer about the sender.
    for (const reason of [
      'insufficient balance',
      'insufficient funds',
      'nonce too low',
      'request timed out',
    ]) {
      assertKind(rpcError(3, `execution reverted: ${reason}`, revertData(reason)), 'deterministic');
    }
  });

  it('a reason never carries control characters (a node may echo raw revert data with NUL bytes)', () => {
    // anvil answers a custom error with arguments, e.g. TokenAlreadyMinted(7), this way.
    const raw = 'execution reverted: custom error 0x1e0e0f2c\u0000\u0000\u0000\u0007\nnext';
    for (const error of [rpcError(3, raw), new Error(raw), raw]) {
      const reason = readableReason(error);
      assert.ok(![...reason].some((c) => c.charCodeAt(0) < 0x20), JSON.stringify(reason));
      assert.match(reason, /custom error 0x1e0e0f2c next/);
    }
    assert.ok(!classifyRpcError(rpcError(3, raw)).reason.includes('\u0000'));
  });

  it('an unknown answer is transient: retried, never a failed transaction', () => {
    assertKind(new InternalRpcError(rpcError(-32603, 'something odd happened')), 'transient');
    assertKind('a string thrown', 'transient');
  });
});

describe('classifyRpcError: real answers through the ChainClient', () => {
  let chain: DevChain;
  let client: ChainClient;
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
  const failure = async (promise: Promise<unknown>): Promise<unknown> => {
    try {
      await promise;
    } catch (error) {
      return error;
    }
    assert.fail('expected the call to fail');
  };

  before(async () => {
    chain = await startDevChain({ blockTimeSeconds: 1 });
    client = createChainClient(chain.rpcUrl, { timeoutMs: 2_000 });
    // Blocks only on demand, so transactions stay in the pool while a test needs them there.
    await rpc('evm_setIntervalMining', [0]);
  });
  after(() => chain.stop());

  const account = () => privateKeyToAccount(chain.accounts[1]!.privateKey);
  async function signed(
    overrides: {
      nonce?: number;
      maxFeePerGas?: bigint;
      maxPriorityFeePerGas?: bigint;
      value?: bigint;
      from?: ReturnType<typeof account>;
    } = {},
  ): Promise<Hex> {
    const from = overrides.from ?? account();
    return from.signTransaction({
      type: 'eip1559',
      chainId: chain.chainId,
      to: '0x000000000000000000000000000000000000dEaD',
      value: overrides.value ?? 1n,
      gas: 21_000n,
      nonce: overrides.nonce ?? (await client.nonce(from.address, 'pending')),
      maxFeePerGas: overrides.maxFeePerGas ?? 10n ** 11n,
      maxPriorityFeePerGas: overrides.maxPriorityFeePerGas ?? 10n ** 9n,
    });
  }

  it('same transaction sent twice, same nonce at the same fee, nonce already mined: ambiguous', async () => {
    const raw = await signed();
    assert.equal(await client.sendRawTransaction(raw), keccak256(raw));
    assertKind(await failure(client.sendRawTransaction(raw)), 'ambiguous');
    const nonce = await client.nonce(account().address, 'latest');
    assertKind(await failure(client.sendRawTransaction(await signed({ nonce, value: 2n }))), 'ambiguous');
    await rpc('evm_mine');
    assert.ok(await client.receipt(keccak256(raw)));
    assertKind(await failure(client.sendRawTransaction(raw)), 'ambiguous');
    assertKind(await failure(client.sendRawTransaction(await signed({ nonce, value: 3n }))), 'ambiguous');
  });

  it('max fee below the base fee: underpriced', async () => {
    assertKind(
      await failure(client.sendRawTransaction(await signed({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }))),
      'underpriced',
    );
  });

  it('a sender without funds: funds', async () => {
    const poor = privateKeyToAccount(generatePrivateKey());
    assertKind(await failure(client.sendRawTransaction(await signed({ from: poor, nonce: 0 }))), 'funds');
  });

  it('a deployment that reverts at estimation: deterministic, with the reason', async () => {
    const error = await failure(
      client.estimateGas({ from: account().address, to: null, data: revertingInitCode('boom'), value: 0n }),
    );
    assertKind(error, 'deterministic');
    assert.match(classifyRpcError(error).reason, /boom/);
  });

  it('a revert whose reason reads like a node answer is still deterministic', async () => {
    for (const reason of ['insufficient balance', 'nonce too low']) {
      const error = await failure(
        client.estimateGas({ from: account().address, to: null, data: revertingInitCode(reason), value: 0n }),
      );
      assertKind(error, 'deterministic');
    }
  });

  it('no node listening, or a node that never answers: transient', async () => {
    const closed = createChainClient('http://127.0.0.1:1', { timeoutMs: 1_000 });
    assertKind(await failure(closed.blockNumber()), 'transient');

    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const slow = createChainClient(`http://127.0.0.1:${port}`, { timeoutMs: 200 });
      const error = await failure(slow.blockNumber());
      assert.ok(error instanceof TimeoutError, 'a viem TimeoutError');
      assertKind(error, 'transient');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

/** Init code that reverts with Error(reason): CODECOPY the revert data after it, then REVERT. */
function revertingInitCode(reason: string): Hex {
  const data = revertData(reason);
  const length = toHex(size(data), { size: 1 });
  // PUSH1 len, PUSH1 12 (code offset of the data), PUSH1 0, CODECOPY, PUSH1 len, PUSH1 0, REVERT
  return concat(['0x60', length, '0x600c600039', '0x60', length, '0x6000fd', data]);
}
