import { type AbiFunction, type Address, encodeFunctionData, type Hex, parseAbi, zeroAddress } from 'viem';
import type { Executor } from '../../../db/executor.ts';
import type { CollectionRow } from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import { ApiError } from '../../../lib/errors.ts';
import { queueTransaction } from '../../platform/transactions/transactions.service.ts';
import { organizationWalletOf } from '../../platform/wallets/wallets.service.ts';
import { validationFailed } from './collection-rows.ts';
import type { RoyaltyInfo } from './collections.schemas.ts';

/** ERC-2981 royalties of a deployed collection, kept in step with its royalty_info. */

const ROYALTY_ABI = parseAbi([
  'function setDefaultRoyalty(address receiver, uint96 feeNumerator)',
  'function deleteDefaultRoyalty()',
]);

/**
 * A deployed contract with CONTRACT_ROYALTY follows the collection's royalty_info: a ROYALTY_UPDATE
 * transaction sets it (setDefaultRoyalty) or clears it (deleteDefaultRoyalty: OpenZeppelin's
 * setDefaultRoyalty refuses the zero receiver, so a contract without it cannot be cleared). Before
 * deployment the platform constructor takes royalty_info; while a deployment is PENDING its
 * constructor arguments are already fixed, so royalty_info waits for it to settle.
 */
export async function updateRoyaltyOnChain(
  db: Executor,
  collection: CollectionRow,
  royalty: RoyaltyInfo | null,
): Promise<void> {
  if (collection.deployment_status === 'PENDING')
    throw new ApiError(
      'INVALID_STATE',
      'royalty_info cannot change while the deployment is pending (its constructor arguments are fixed): retry once it settled',
    );
  if (collection.deployment_status !== 'SUCCESS' || !collection.capabilities.includes('CONTRACT_ROYALTY'))
    return;
  let data: Hex;
  if (royalty) {
    data = encodeFunctionData({
      abi: ROYALTY_ABI,
      functionName: 'setDefaultRoyalty',
      args: [royalty.receiver as Address, BigInt(royalty.amount_bps)],
    });
  } else {
    const canDelete = (collection.abi ?? []).some(
      (item) =>
        (item as AbiFunction).type === 'function' &&
        (item as AbiFunction).name === 'deleteDefaultRoyalty' &&
        (item as AbiFunction).inputs.length === 0,
    );
    if (!canDelete)
      throw new ApiError(
        'INVALID_STATE',
        "the collection's contract has no deleteDefaultRoyalty(): its default royalty cannot be removed, only changed",
      );
    data = encodeFunctionData({ abi: ROYALTY_ABI, functionName: 'deleteDefaultRoyalty' });
  }
  const wallet = await organizationWalletOf(db, collection.organization_id);
  await queueTransaction(db, {
    networkId: collection.network_id!,
    wallet,
    type: 'ROYALTY_UPDATE',
    to: collection.contract_address!,
    data,
  });
}

export function checkedRoyalty(royalty: RoyaltyInfo, at: string): RoyaltyInfo {
  const receiver = checkedAddress(royalty.receiver, `${at}/receiver`);
  if (receiver === zeroAddress)
    throw validationFailed(
      'the royalty receiver cannot be the zero address',
      `${at}/receiver`,
      'must not be the zero address',
    );
  return { receiver, amount_bps: royalty.amount_bps };
}

export function sameRoyalty(a: RoyaltyInfo | null, b: RoyaltyInfo | null): boolean {
  if (a === null || b === null) return a === b;
  return a.receiver === b.receiver && a.amount_bps === b.amount_bps;
}
