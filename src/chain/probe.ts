import {
  type Abi,
  type AbiFunction,
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  hexToBytes,
  parseAbi,
} from 'viem';
import { ApiError } from '../lib/errors.ts';
import { printable } from '../lib/text.ts';
import {
  CAPABILITIES,
  type CapabilityName,
  canonicalSignature,
  capabilitiesOf,
  capabilityAbi,
  functionSelector,
  type TokenType,
} from './capabilities.ts';
import { type ChainClient, classifyRpcError, readableReason } from './rpc.ts';

/**
 * Reading an already deployed (EXTERNAL) contract: its capabilities come from two kinds of
 * evidence, since its ABI is not known for sure.
 * - ERC-165: `supportsInterface` for the registry's interface ids (ERC721, ERC1155, ERC2981,
 *   AccessControl): the contract's own statement that it has all of a capability's functions.
 * - The deployed bytecode: a Solidity dispatcher compares the call's selector with each public
 *   function's selector, pushed as a constant (PUSH4, or shorter when it starts with zero bytes),
 *   so a function whose selector is never pushed is not one the contract answers.
 * A proxy's bytecode holds the proxy's functions, not its implementation's: only ERC-165 speaks
 * for those.
 */

const PROBE_ABI = parseAbi([
  'function supportsInterface(bytes4 interfaceId) view returns (bool)',
  'function symbol() view returns (string)',
]);

/** ERC-165's own id, and the id every ERC-165 contract must deny. */
const ERC165_ID: Hex = '0x01ffc9a7';
const INVALID_ID: Hex = '0xffffffff';

/** Longest symbol() kept; a contract may answer with anything. */
const MAX_SYMBOL_LENGTH = 64;

/**
 * The 4-byte values a contract's code pushes (PUSH1 to PUSH4, left-padded to 4 bytes), as
 * lowercase `0x` selectors: the candidates of its function dispatcher. The code is walked opcode
 * by opcode, so bytes inside a longer PUSH's data are never read as opcodes.
 */
export function dispatchedSelectors(code: Hex): Set<Hex> {
  const bytes = hexToBytes(code);
  const found = new Set<Hex>();
  for (let i = 0; i < bytes.length; i++) {
    const op = bytes[i]!;
    if (op < 0x60 || op > 0x7f) continue;
    const size = op - 0x5f;
    if (size <= 4 && i + size < bytes.length) {
      let hex = '';
      for (let j = 1; j <= size; j++) hex += bytes[i + j]!.toString(16).padStart(2, '0');
      found.add(`0x${hex.padStart(8, '0')}`);
    }
    i += size;
  }
  return found;
}

export interface CodeEvidence {
  /** Selectors the bytecode dispatches (dispatchedSelectors). */
  selectors: ReadonlySet<Hex>;
  /** Capabilities the contract declares through ERC-165. */
  interfaces: ReadonlySet<CapabilityName>;
}

/**
 * The capabilities the evidence supports, and the ABI to call the contract with. With `abi`
 * (the caller's), only its functions that the bytecode dispatches count, and it is the ABI kept;
 * without, every registry function the bytecode dispatches counts, and the ABI kept is the
 * registry's fragments of the capabilities found, in the form of `tokenType`.
 */
export function capabilitiesFromEvidence(
  evidence: CodeEvidence,
  tokenType: TokenType,
  abi?: Abi,
): { capabilities: CapabilityName[]; abi: Abi } {
  const candidates = abi
    ? abi.filter((item): item is AbiFunction => item.type === 'function')
    : CAPABILITIES.flatMap((c) => c.abi);
  const confirmed = candidates.filter((fn) => evidence.selectors.has(functionSelector(fn)));
  const declared = CAPABILITIES.filter((c) => evidence.interfaces.has(c.name)).flatMap((c) => c.abi);
  const capabilities = capabilitiesOf([...confirmed, ...declared]);
  return { capabilities, abi: abi ?? registryAbi(capabilities, tokenType) };
}

/** The registry's fragments of `capabilities` (the form of `tokenType`), each function once. */
export function registryAbi(capabilities: readonly CapabilityName[], tokenType: TokenType): Abi {
  const seen = new Set<string>();
  const fragments: AbiFunction[] = [];
  for (const name of capabilities) {
    for (const fn of capabilityAbi(name, tokenType) ?? []) {
      const signature = canonicalSignature(fn);
      if (seen.has(signature)) continue;
      seen.add(signature);
      fragments.push({ ...fn, inputs: [...fn.inputs], outputs: [...fn.outputs] });
    }
  }
  return fragments;
}

export interface ProbedContract {
  capabilities: CapabilityName[];
  /** The ABI the service will call the contract with (see capabilitiesFromEvidence). */
  abi: Abi;
  /** `symbol()`, or '' when the contract does not answer it with a string. */
  symbol: string;
}

/**
 * Reads the contract at `address`: undefined when there is no code there; a node that fails
 * answers 502 UPSTREAM_FAILED. Reverts and undecodable answers count as "no".
 */
export async function probeContract(
  client: ChainClient,
  address: Address,
  options: { tokenType: TokenType; abi?: Abi | undefined },
): Promise<ProbedContract | undefined> {
  const code = await upstream(address, () => client.viem.getCode({ address }));
  if (!code || code === '0x') return undefined;
  const [interfaces, symbol] = await Promise.all([
    supportedInterfaces(client, address),
    contractSymbol(client, address),
  ]);
  const { capabilities, abi } = capabilitiesFromEvidence(
    { selectors: dispatchedSelectors(code), interfaces },
    options.tokenType,
    options.abi,
  );
  return { capabilities, abi, symbol };
}

/** The registry's capabilities the contract declares through ERC-165 (done as EIP-165 says). */
async function supportedInterfaces(client: ChainClient, address: Address): Promise<Set<CapabilityName>> {
  const supports = async (id: Hex) => {
    const data = encodeFunctionData({ abi: PROBE_ABI, functionName: 'supportsInterface', args: [id] });
    const answer = await callOrRevert(client, address, data);
    if (answer === undefined) return false;
    try {
      return decodeFunctionResult({ abi: PROBE_ABI, functionName: 'supportsInterface', data: answer });
    } catch {
      return false;
    }
  };
  const [erc165, invalid] = await Promise.all([supports(ERC165_ID), supports(INVALID_ID)]);
  if (!erc165 || invalid) return new Set();
  const declared = CAPABILITIES.filter((c) => c.interfaceId !== null);
  const answers = await Promise.all(declared.map((c) => supports(c.interfaceId!)));
  return new Set(declared.filter((_, i) => answers[i]).map((c) => c.name));
}

/**
 * `symbol()` made printable and at most 64 characters; '' when the contract reverts or does not
 * answer with a string. A node that fails is 502 UPSTREAM_FAILED.
 */
export async function contractSymbol(client: ChainClient, address: Address): Promise<string> {
  const data = encodeFunctionData({ abi: PROBE_ABI, functionName: 'symbol' });
  const answer = await callOrRevert(client, address, data);
  if (answer === undefined) return '';
  try {
    return printable(decodeFunctionResult({ abi: PROBE_ABI, functionName: 'symbol', data: answer })).slice(
      0,
      MAX_SYMBOL_LENGTH,
    );
  } catch {
    return '';
  }
}

/** The call's answer; undefined when the contract reverted (the node answered). */
async function callOrRevert(client: ChainClient, to: Address, data: Hex): Promise<Hex | undefined> {
  try {
    return await client.call({ to, data });
  } catch (error) {
    if (classifyRpcError(error).kind === 'deterministic') return undefined;
    throw upstreamFailed(to, error);
  }
}

async function upstream<T>(address: Address, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw upstreamFailed(address, error);
  }
}

function upstreamFailed(address: Address, error: unknown): ApiError {
  return new ApiError(
    'UPSTREAM_FAILED',
    `the network's node failed reading the contract at ${address}: ${readableReason(error)}`,
  );
}
