import { type Address, encodeFunctionData, type Hex } from 'viem';
import { type CapabilityName, capabilityAbi, type TokenType } from '../../../chain/capabilities.ts';
import type { DeployedContract, ItemFlow } from '../../catalog/items/item-flows.service.ts';

/**
 * Deliveries batched across buyers. On a contract with a call that reaches many recipients
 * (ADMIN_MINT_BATCH, BATCH_TRANSFER), each token flow record is an entry `(to, token id, amount)`
 * of such a call: records of one collection and one call join an open batch transaction
 * (queueBatchEntries), each keeping its own record and state, and the relayer closes the batch
 * when it is full or its network's window has passed, with the calldata this module composes
 * from the records the batch carries then (the port `batches`). Before the batch is sent, an entry
 * that alone makes it revert is taken out (its record FAILED with the reason, its owner told), so
 * one refusing recipient does not fail its neighbours; a batch that reverts on chain fails each
 * of its records, as any transaction does.
 */

/** A call that delivers to many recipients, one entry each. */
export type BatchCall = 'ERC721_MINT' | 'ERC1155_MINT' | 'ERC721_TRANSFER' | 'ERC1155_TRANSFER';

/**
 * Gas of one entry of each call, to a holder new to the token (two fresh storage slots), as
 * measured by test/contracts, rounded up: counted against the network's `batch.maxGas`.
 */
export const GAS_PER_ENTRY: Readonly<Record<BatchCall, number>> = Object.freeze({
  ERC721_MINT: 56_000,
  ERC1155_MINT: 36_000,
  ERC721_TRANSFER: 40_000,
  ERC1155_TRANSFER: 36_000,
});

/** The batch call a flow uses on a contract, when it has one (else one transaction per request). */
export function batchCallOf(
  contract: DeployedContract,
  flow: ItemFlow,
  externalIds: boolean,
): BatchCall | undefined {
  const has = (c: CapabilityName) => contract.capabilities.includes(c);
  if (flow === 'MINT') {
    // The contract picks EXTERNAL ids (mintBatchNoId, one recipient): not batched across buyers.
    if (externalIds || !has('ADMIN_MINT_BATCH')) return undefined;
    return contract.tokenType === 'ERC721' ? 'ERC721_MINT' : 'ERC1155_MINT';
  }
  if (!has('BATCH_TRANSFER')) return undefined;
  return contract.tokenType === 'ERC721' ? 'ERC721_TRANSFER' : 'ERC1155_TRANSFER';
}

/** What may share a batch: one call on one collection's contract (so one organization). */
export function batchKey(call: BatchCall, collectionId: string): string {
  return `${call}:${collectionId}`;
}

/** Entries a batch of `call` carries at most on a network with these caps. */
export function batchCap(call: BatchCall, caps: { maxItems: number; maxGas: number }): number {
  return Math.max(1, Math.min(caps.maxItems, Math.floor(caps.maxGas / GAS_PER_ENTRY[call])));
}

export function callOfKey(key: string): BatchCall {
  const call = key.slice(0, key.indexOf(':'));
  if (!(call in GAS_PER_ENTRY)) throw new Error(`batch key ${key} names no batch call`);
  return call as BatchCall;
}

export interface BatchEntry {
  to: Address;
  tokenId: bigint;
  amount: bigint;
}

/** Calldata of a capability's function in its form for `tokenType`. */
export function encodeCapabilityCall(
  capability: CapabilityName,
  tokenType: TokenType,
  functionName: string,
  args: unknown[],
): Hex {
  const abi = capabilityAbi(capability, tokenType);
  if (!abi) throw new Error(`capability ${capability} has no ${tokenType} form`);
  return encodeFunctionData({ abi, functionName, args } as Parameters<typeof encodeFunctionData>[0]);
}

/** The calldata of one call delivering `entries`, from `from` (the sending wallet) for transfers. */
export function batchCalldata(call: BatchCall, from: Address, entries: readonly BatchEntry[]): Hex {
  const to = entries.map((e) => e.to);
  const ids = entries.map((e) => e.tokenId);
  const amounts = entries.map((e) => e.amount);
  switch (call) {
    case 'ERC721_MINT':
      return encodeCapabilityCall('ADMIN_MINT_BATCH', 'ERC721', 'mintBatch', [to, ids]);
    case 'ERC1155_MINT':
      return encodeCapabilityCall('ADMIN_MINT_BATCH', 'ERC1155', 'mintToMany', [to, ids, amounts]);
    case 'ERC721_TRANSFER':
      return encodeCapabilityCall('BATCH_TRANSFER', 'ERC721', 'transferToMany', [from, to, ids]);
    case 'ERC1155_TRANSFER':
      return encodeCapabilityCall('BATCH_TRANSFER', 'ERC1155', 'transferToMany', [from, to, ids, amounts]);
  }
}
