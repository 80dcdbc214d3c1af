import {
  type Address,
  BaseError,
  ContractFunctionExecutionError,
  erc20Abi,
  HttpRequestError,
  RpcRequestError,
  TimeoutError,
} from 'viem';
import type { ChainClient } from './rpc.ts';

export interface Erc20Metadata {
  symbol: string;
  decimals: number;
}

/**
 * The address answered, but not as an ERC-20 does: no contract there, `symbol()` or
 * `decimals()` reverted, or returned something that does not decode as a string / uint8.
 */
export class NotAnErc20Error extends Error {
  override readonly name = 'NotAnErc20Error';
}

/**
 * Reads an ERC-20's `symbol()` and `decimals()` from the chain. Throws NotAnErc20Error when the
 * contract is not an ERC-20; any other error (the node failed or did not answer) is rethrown as
 * it came, for the caller to report as an upstream failure.
 */
export async function readErc20Metadata(client: ChainClient, address: Address): Promise<Erc20Metadata> {
  const code = await client.viem.getCode({ address });
  if (code === undefined || code === '0x') throw new NotAnErc20Error(`no contract at ${address}`);
  const read = async <F extends 'symbol' | 'decimals'>(functionName: F) => {
    try {
      return await client.viem.readContract({ address, abi: erc20Abi, functionName });
    } catch (error) {
      if (isContractAnswer(error)) {
        throw new NotAnErc20Error(
          `${functionName}() of ${address} failed: ${(error as BaseError).shortMessage}`,
        );
      }
      throw error;
    }
  };
  const [symbol, decimals] = await Promise.all([read('symbol'), read('decimals')]);
  return { symbol, decimals };
}

/**
 * True when the call reached the contract and the contract's answer was the problem (a revert,
 * no data, data that does not decode); false when the node itself failed (HTTP error, timeout,
 * a JSON-RPC error that is not a revert), which says nothing about the contract.
 */
function isContractAnswer(error: unknown): boolean {
  if (!(error instanceof ContractFunctionExecutionError)) return false;
  if (error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError)) return false;
  const rpcError = error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  // JSON-RPC code 3 (and -32000 with "revert" on older nodes) is the node reporting a revert.
  if (rpcError && rpcError.code !== 3 && !/revert/i.test(rpcError.details)) return false;
  return error instanceof BaseError;
}
