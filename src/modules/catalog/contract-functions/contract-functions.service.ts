import {
  type Abi,
  type AbiFunction,
  type AbiParameter,
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  encodeFunctionData,
  getAddress,
  type Hex,
} from 'viem';
import type { Principal } from '../../../access/principal.ts';
import { canonicalSignature, functionSelector } from '../../../chain/capabilities.ts';
import { classifyRpcError, readableReason } from '../../../chain/rpc.ts';
import type { Deps } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { paginateStatic } from '../../../http/static-pagination.ts';
import { ApiError } from '../../../lib/errors.ts';
import { chainClientFor } from '../../platform/networks/networks.service.ts';
import { queueTransaction } from '../../platform/transactions/transactions.service.ts';
import { organizationWalletOf } from '../../platform/wallets/wallets.service.ts';
import {
  type CollectionRow,
  getCollectionRow,
  lockCollectionRow,
} from '../collections/collections.service.ts';
import { abiValuesFromJson } from '../contracts/abi-json.ts';
import { abiOutputsToJson, abiValueToJson } from './abi-to-json.ts';
import * as repo from './contract-functions.repository.ts';
import type { CallResult, ContractFunction, ExecuteResult } from './contract-functions.schemas.ts';

/** A function of a collection's ABI: its id (selector), its stored fragment and viem's view of it. */
export interface AbiFunctionEntry {
  readonly id: string;
  /** The entry as stored in collections.abi, returned to clients as `abi`. */
  readonly fragment: Record<string, unknown>;
  readonly fn: AbiFunction;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const MUTABILITIES = new Set(['pure', 'view', 'nonpayable', 'payable']);

/** A stored JSON ABI function entry as viem's AbiFunction; pre-0.6 `constant`/`payable` flags read too. */
function toAbiFunction(entry: Record<string, unknown>): AbiFunction | undefined {
  if (entry.type !== 'function' || typeof entry.name !== 'string') return undefined;
  const stateMutability =
    typeof entry.stateMutability === 'string' && MUTABILITIES.has(entry.stateMutability)
      ? (entry.stateMutability as AbiFunction['stateMutability'])
      : entry.constant === true
        ? 'view'
        : entry.payable === true
          ? 'payable'
          : 'nonpayable';
  return {
    type: 'function',
    name: entry.name,
    inputs: (Array.isArray(entry.inputs) ? entry.inputs : []) as AbiParameter[],
    outputs: (Array.isArray(entry.outputs) ? entry.outputs : []) as AbiParameter[],
    stateMutability,
  };
}

/**
 * The contract functions of a collection: the `function` entries of its stored ABI, identified
 * by selector (computed from the canonical signature, so overloads get distinct ids). No ABI yet
 * (no deployment): none. A selector met twice keeps its first entry.
 */
export function functionsOfAbi(abi: unknown): AbiFunctionEntry[] {
  if (!Array.isArray(abi)) return [];
  const byId = new Map<string, AbiFunctionEntry>();
  for (const entry of abi) {
    if (!isRecord(entry)) continue;
    const fn = toAbiFunction(entry);
    if (!fn) continue;
    let id: string;
    try {
      id = functionSelector(fn).slice(2).toLowerCase();
    } catch {
      continue; // an entry viem cannot read (a malformed type) is no callable function
    }
    if (!byId.has(id)) byId.set(id, { id, fragment: entry, fn });
  }
  return [...byId.values()];
}

/** The custom errors of a stored ABI, so reverts decode to their names. */
function errorsOfAbi(abi: unknown): Abi {
  if (!Array.isArray(abi)) return [];
  return abi.filter(
    (e) => isRecord(e) && e.type === 'error' && typeof e.name === 'string' && Array.isArray(e.inputs),
  ) as Abi;
}

function findFunction(collection: CollectionRow, functionId: string): AbiFunctionEntry {
  const id = functionId.toLowerCase();
  const entry = functionsOfAbi(collection.abi).find((f) => f.id === id);
  if (!entry) throw new ApiError('NOT_FOUND', `the collection's ABI has no function with selector ${id}`);
  return entry;
}

function toContractFunction(entry: AbiFunctionEntry, enabled: boolean | undefined): ContractFunction {
  return {
    id: entry.id,
    abi: entry.fragment as ContractFunction['abi'],
    enabled: enabled ?? false,
  };
}

/** List contract functions: a page of the ABI's functions, ordered by id. */
export async function listContractFunctions(
  db: Executor,
  principal: Principal,
  collectionId: string,
  page: PageParams,
): Promise<PageResult<ContractFunction>> {
  const collection = await getCollectionRow(db, principal, collectionId);
  const states = await repo.listFunctionStates(db, collection.id);
  const functions = functionsOfAbi(collection.abi).map((f) => toContractFunction(f, states.get(f.id)));
  return paginateStatic(functions, {
    page,
    list: `collection-functions:${collection.id}`,
    filters: {},
    key: (f) => f.id,
  });
}

export async function getContractFunction(
  db: Executor,
  principal: Principal,
  collectionId: string,
  functionId: string,
): Promise<ContractFunction> {
  const collection = await getCollectionRow(db, principal, collectionId);
  const entry = findFunction(collection, functionId);
  return toContractFunction(entry, await repo.findFunctionEnabled(db, collection.id, entry.id));
}

/**
 * Enable or disable a contract function. The collection row is locked, so a switch and an
 * execute of the same collection never interleave.
 */
export async function editContractFunction(
  db: Tx,
  principal: Principal,
  collectionId: string,
  functionId: string,
  enabled: boolean,
): Promise<ContractFunction> {
  const collection = await lockCollectionRow(db, principal, collectionId);
  const entry = findFunction(collection, functionId);
  return toContractFunction(entry, await repo.upsertFunctionEnabled(db, collection.id, entry.id, enabled));
}

const isReadOnly = (fn: AbiFunction) => fn.stateMutability === 'view' || fn.stateMutability === 'pure';

function signatureOf(entry: AbiFunctionEntry): string {
  return `${canonicalSignature(entry.fn)} (${entry.id})`;
}

interface Deployed {
  address: Hex;
  networkId: number;
}

function deployedContract(collection: CollectionRow): Deployed {
  if (collection.contract_address === null || collection.network_id === null) {
    throw new ApiError('INVALID_STATE', 'the collection has no deployed contract yet');
  }
  return { address: getAddress(collection.contract_address), networkId: collection.network_id };
}

/** JSON arguments (null: none) as viem values and the encoded call data; faults are 400 with fields. */
function encodeCall(
  entry: AbiFunctionEntry,
  args: readonly unknown[] | null,
): { values: unknown[]; data: Hex } {
  const values = abiValuesFromJson(entry.fn.inputs, args ?? [], '/arguments');
  try {
    return {
      values,
      data: encodeFunctionData({ abi: [entry.fn], functionName: entry.fn.name, args: values }),
    };
  } catch (error) {
    const message = error instanceof BaseError ? error.shortMessage : 'cannot be encoded for the function';
    throw new ApiError('VALIDATION_FAILED', 'the arguments do not match the ABI', {
      fields: [{ path: '/arguments', message }],
    });
  }
}

/** One line naming a revert: the reason string, the panic, or the custom error with its arguments. */
function revertDetail(revert: ContractFunctionRevertedError): string {
  const decoded = revert.data;
  // Error(string) and Panic(uint256) come with viem's reading of them as the reason.
  if (decoded?.errorName && decoded.errorName !== 'Error' && decoded.errorName !== 'Panic') {
    const inputs = (decoded.abiItem && 'inputs' in decoded.abiItem ? decoded.abiItem.inputs : []) ?? [];
    const args = (decoded.args ?? []).map((value, i) => {
      const input = inputs[i];
      const json = input ? abiValueToJson(input, value) : String(value);
      return typeof json === 'string' ? json : JSON.stringify(json);
    });
    return `the call reverted with ${decoded.errorName}(${args.join(', ')})`;
  }
  if (revert.signature)
    return `the call reverted with an error unknown to the ABI (selector ${revert.signature})`;
  if (revert.reason && revert.reason !== 'execution reverted') return `the call reverted: ${revert.reason}`;
  return 'the call reverted without a reason';
}

/**
 * Read from a contract function: view and pure functions only, through eth_call on the
 * collection's network. A revert is the contract refusing the arguments (400 with the decoded
 * reason or custom error); a node that does not answer is 502 UPSTREAM_FAILED.
 */
export async function callContractFunction(
  db: Executor,
  deps: Deps,
  principal: Principal,
  collectionId: string,
  functionId: string,
  args: readonly unknown[] | null,
): Promise<CallResult> {
  const collection = await getCollectionRow(db, principal, collectionId);
  const entry = findFunction(collection, functionId);
  if (!isReadOnly(entry.fn)) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `${signatureOf(entry)} is ${entry.fn.stateMutability}: only view and pure functions can be called; use execute to send a transaction`,
    );
  }
  const contract = deployedContract(collection);
  const { values } = encodeCall(entry, args);
  const { client } = await chainClientFor(db, deps, contract.networkId);

  let raw: unknown;
  try {
    raw = await client.viem.readContract({
      address: contract.address,
      abi: [entry.fn, ...errorsOfAbi(collection.abi)],
      functionName: entry.fn.name,
      args: values,
    });
  } catch (error) {
    throw callError(error, contract, entry);
  }
  // viem gives the value itself for one output and an array for several.
  const outputs = entry.fn.outputs;
  const decoded = outputs.length === 1 ? [raw] : ((raw ?? []) as readonly unknown[]);
  return { result: abiOutputsToJson(outputs, decoded) };
}

function callError(error: unknown, contract: Deployed, entry: AbiFunctionEntry): ApiError {
  if (error instanceof BaseError) {
    const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) {
      return new ApiError('VALIDATION_FAILED', revertDetail(revert));
    }
    if (
      error.walk((e) => e instanceof ContractFunctionZeroDataError || /AbiDecoding/.test((e as Error).name))
    ) {
      return new ApiError(
        'INVALID_STATE',
        `the contract at ${contract.address} on network ${contract.networkId} did not answer ${signatureOf(entry)} as the collection's ABI declares (no contract there, or another ABI)`,
      );
    }
  }
  const classified = classifyRpcError(error);
  if (classified.kind === 'deterministic' && /revert/i.test(classified.reason)) {
    return new ApiError('VALIDATION_FAILED', `the call reverted: ${classified.reason}`);
  }
  return new ApiError(
    'UPSTREAM_FAILED',
    `the node of network ${contract.networkId} did not answer the call: ${readableReason(error)}`,
  );
}

/**
 * Execute a contract function: a FUNCTION_EXECUTE transaction from the organization's
 * wallet to the contract, queued for the relayer. Needs the collection's functions_enabled and
 * the function enabled. Payable functions are sent without value (the API takes none).
 */
export async function executeContractFunction(
  db: Tx,
  principal: Principal,
  collectionId: string,
  functionId: string,
  args: readonly unknown[] | null,
): Promise<ExecuteResult> {
  // Locked: a concurrent switch of functions_enabled or of the function waits for this decision.
  const collection = await lockCollectionRow(db, principal, collectionId);
  const entry = findFunction(collection, functionId);
  if (isReadOnly(entry.fn)) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `${signatureOf(entry)} is ${entry.fn.stateMutability}: it changes nothing on chain; use call to read it`,
    );
  }
  if (!collection.functions_enabled) {
    throw new ApiError(
      'INVALID_STATE',
      "the collection's functions_enabled is false: enable it with PATCH /v1/collections/{collection_id} before executing functions",
    );
  }
  if ((await repo.findFunctionEnabled(db, collection.id, entry.id)) !== true) {
    throw new ApiError(
      'INVALID_STATE',
      `function ${signatureOf(entry)} is not enabled: enable it with PATCH /v1/collections/{collection_id}/functions/${entry.id}`,
    );
  }
  const contract = deployedContract(collection);
  const { data } = encodeCall(entry, args);
  const wallet = await organizationWalletOf(db, collection.organization_id);
  const transaction = await queueTransaction(db, {
    networkId: contract.networkId,
    wallet,
    type: 'FUNCTION_EXECUTE',
    to: contract.address,
    data,
  });
  return { transaction_id: transaction.id };
}
