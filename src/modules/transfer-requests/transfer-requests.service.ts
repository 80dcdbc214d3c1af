import { type Address, encodeFunctionData, type Hex } from 'viem';
import type { Principal } from '../../access/principal.ts';
import { assertTokenCapability, capabilityAbi, type TokenType } from '../../chain/capabilities.ts';
import type { Deps } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import type { ItemRow, TransactionRow } from '../../db/schema.ts';
import { ApiError } from '../../http/errors.ts';
import { checkedAddress } from '../../http/inputs.ts';
import type { PageParams, PageResult } from '../../http/pagination.ts';
import { iso } from '../../http/schemas.ts';
import {
  collectionOfSelection,
  completeTransfer,
  deployedContractOf,
  lockFlowItems,
  parseItemSelection,
  releaseReservations,
} from '../items/item-flows.service.ts';
import * as repo from '../mint-requests/mint-requests.service.ts';
import {
  broadcastHash,
  checkedQuantity,
  failureReasonOf,
  queueTokenRequests,
  requestState,
  requestView,
  requestViews,
  reserveForRequests,
  type TokenRequestFilters,
} from '../mint-requests/mint-requests.service.ts';
import type { TokenRequestBody, TransferRequest } from './transfer-requests.schemas.ts';

export function toTransferRequest(view: repo.TokenRequestView): TransferRequest {
  return {
    id: view.id,
    item_id: view.item_id,
    collection_id: view.collection_id,
    token_id: view.token_id,
    // At most Number.MAX_SAFE_INTEGER: checked on create.
    quantity: Number(view.quantity),
    state: requestState(view.state, view.transaction_state),
    to_address: view.to_address,
    transaction_id: view.transaction_id,
    tx_hash: broadcastHash(view.transaction_state, view.tx_hash),
    failure_reason: view.failure_reason,
    created_at: iso(view.created_at),
  };
}

function transferCall(tokenType: TokenType, functionName: string, args: unknown[]): Hex {
  const abi = capabilityAbi(tokenType, tokenType)!;
  return encodeFunctionData({ abi, functionName, args } as Parameters<typeof encodeFunctionData>[0]);
}

/**
 * ERC-1155: one safeBatchTransferFrom for the request; ERC-721 has no batch transfer in its
 * standard, so one safeTransferFrom per item.
 */
function transferCalls(
  tokenType: TokenType,
  items: readonly ItemRow[],
  from: Address,
  to: Address,
  quantity: bigint,
): { data: Hex; items: readonly ItemRow[] }[] {
  const id = (item: ItemRow) => BigInt(item.token_id!);
  if (tokenType === 'ERC1155') {
    return [
      {
        data: transferCall('ERC1155', 'safeBatchTransferFrom', [
          from,
          to,
          items.map(id),
          items.map(() => quantity),
          '0x',
        ]),
        items,
      },
    ];
  }
  return items.map((item) => ({
    data: transferCall('ERC721', 'safeTransferFrom', [from, to, id(item)]),
    items: [item],
  }));
}

/**
 * Request transfer (SERVICE-SPEC Group D), all or nothing in the caller's transaction: the items
 * (locked, minted, held by the organization's wallet, not reserved) are locked, reserved
 * (TRANSFER) and their transactions queued from the organization's wallet; one record per item.
 * With collection_id (alone or with token_ranges) and no qualifying item, the list is empty.
 */
export async function createTransferRequests(
  db: Executor,
  principal: Principal,
  body: TokenRequestBody,
): Promise<TransferRequest[]> {
  const to = checkedAddress(body.to_address, '/to_address');
  const selection = parseItemSelection(body);
  const collection = await collectionOfSelection(db, principal, selection);
  const contract = deployedContractOf(collection);
  assertTokenCapability(contract.capabilities, contract.tokenType);
  const quantity = checkedQuantity(body.quantity, contract.tokenType);
  // Transfer records carry quantity as a JSON integer (SERVICE-SPEC "Mint request and transfer request").
  if (quantity > BigInt(Number.MAX_SAFE_INTEGER))
    throw new ApiError('VALIDATION_FAILED', `quantity of a transfer is at most ${Number.MAX_SAFE_INTEGER}`, {
      fields: [{ path: '/quantity', message: `must be at most ${Number.MAX_SAFE_INTEGER}` }],
    });

  const items = await lockFlowItems(db, { collection, flow: 'TRANSFER', selection, quantity });
  if (items.length === 0) return [];
  const { wallet, requestIds } = await reserveForRequests(db, collection, items, 'TRANSFER', quantity);
  const views = await queueTokenRequests(db, {
    table: 'transfer_requests',
    type: 'TRANSFER',
    collection,
    contract,
    wallet,
    calls: transferCalls(contract.tokenType, items, wallet.address as Address, to, quantity),
    requestIds,
    quantity,
    to,
  });
  return views.map(toTransferRequest);
}

export async function getTransferRequest(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<TransferRequest> {
  return toTransferRequest(await requestView(db, principal, 'transfer_requests', id));
}

export async function listTransferRequests(
  db: Executor,
  principal: Principal,
  page: PageParams,
  filters: TokenRequestFilters,
): Promise<PageResult<TransferRequest>> {
  const result = await requestViews(db, principal, 'transfer_requests', page, filters);
  return { ...result, results: result.results.map(toTransferRequest) };
}

/**
 * Settlement of a TRANSFER transaction (idempotent: only requests not yet COMPLETED or FAILED
 * move). Success: requests COMPLETED, the units leave the organization's wallet count. Revert or
 * cancellation: requests FAILED with the reason. Either way the reservations are released.
 */
export async function settleTransferTransaction(
  db: Executor,
  _deps: Deps,
  transaction: TransactionRow,
): Promise<void> {
  const requests = await repo.lockOpenRequests(db, 'transfer_requests', transaction.id);
  if (requests.length === 0) return;
  const ids = requests.map((r) => r.id);
  if (transaction.state === 'COMPLETED' && transaction.on_chain_status === 'SUCCESS') {
    const wallet = transaction.from_address.toLowerCase();
    for (const request of requests) {
      await completeTransfer(db, {
        itemId: request.item_id,
        quantity: BigInt(request.quantity),
        toOrganizationWallet: request.to_address.toLowerCase() === wallet,
      });
    }
    await repo.settleRequests(db, 'transfer_requests', ids, { state: 'COMPLETED' });
  } else {
    const reason = failureReasonOf(transaction);
    await repo.settleRequests(db, 'transfer_requests', ids, { state: 'FAILED', reason });
  }
  await releaseReservations(db, ids);
}
