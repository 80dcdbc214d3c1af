import type { Principal } from '../../access/principal.ts';
import type { Deps } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { checkedAddress } from '../../http/inputs.ts';
import type { PageParams, PageResult } from '../../http/pagination.ts';
import { iso } from '../../http/schemas.ts';
import { lockFlowItems } from '../items/item-flows.service.ts';
import { collectionOfSelection, parseItemSelection } from '../items/item-selection.ts';
import {
  broadcastHash,
  checkedQuantity,
  checkedRecipient,
  contractForFlow,
  getTokenRequest,
  listTokenRequests,
  requestState,
  startTokenFlow,
  type TokenRequestFilters,
  type TokenRequestView,
} from '../token-flows/token-flows.service.ts';
import type { TokenRequestBody, TransferRequest } from './transfer-requests.schemas.ts';

export function toTransferRequest(view: TokenRequestView): TransferRequest {
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

/**
 * Request transfer (SERVICE-SPEC Group D), all or nothing in the caller's transaction: the items
 * (locked, minted, held by the organization's wallet, not reserved) are locked and checked, then
 * sent through the token flow from the organization's wallet (src/modules/token-flows). With
 * collection_id (alone or with token_ranges) and no qualifying item, the list is empty.
 */
export async function createTransferRequests(
  db: Executor,
  deps: Deps,
  principal: Principal,
  body: TokenRequestBody,
): Promise<TransferRequest[]> {
  const address = checkedAddress(body.to_address, '/to_address');
  const selection = parseItemSelection(body);
  const collection = await collectionOfSelection(db, principal, selection);
  const contract = contractForFlow(collection, 'TRANSFER');
  const to = checkedRecipient(address, contract, '/to_address');
  const quantity = checkedQuantity(body.quantity, contract.tokenType);
  // Transfer records carry quantity as a JSON integer (SERVICE-SPEC "Mint request and transfer request").
  if (quantity > BigInt(Number.MAX_SAFE_INTEGER))
    throw new ApiError('VALIDATION_FAILED', `quantity of a transfer is at most ${Number.MAX_SAFE_INTEGER}`, {
      fields: [{ path: '/quantity', message: `must be at most ${Number.MAX_SAFE_INTEGER}` }],
    });
  const items = await lockFlowItems(db, { collection, flow: 'TRANSFER', selection, quantity });
  const views = await startTokenFlow(db, deps, { flow: 'TRANSFER', collection, items, quantity, to });
  return views.map(toTransferRequest);
}

export async function getTransferRequest(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<TransferRequest> {
  return toTransferRequest(await getTokenRequest(db, principal, 'TRANSFER', id));
}

export async function listTransferRequests(
  db: Executor,
  principal: Principal,
  page: PageParams,
  filters: TokenRequestFilters,
): Promise<PageResult<TransferRequest>> {
  const result = await listTokenRequests(db, principal, 'TRANSFER', page, filters);
  return { ...result, results: result.results.map(toTransferRequest) };
}
