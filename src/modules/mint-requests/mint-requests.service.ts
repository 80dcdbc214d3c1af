import type { Principal } from '../../access/principal.ts';
import type { Deps } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
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
import type { MintRequest, TokenRequestBody } from './mint-requests.schemas.ts';

export function toMintRequest(view: TokenRequestView): MintRequest {
  return {
    id: view.id,
    item_id: view.item_id,
    collection_id: view.collection_id,
    token_id: view.token_id,
    quantity: view.quantity,
    state: requestState(view.state, view.transaction_state),
    to_address: view.to_address,
    transaction_id: view.transaction_id,
    tx_hash: broadcastHash(view.transaction_state, view.tx_hash),
    failure_reason: view.failure_reason,
    created_at: iso(view.created_at),
  };
}

/**
 * Request mint (SERVICE-SPEC Group D), all or nothing in the caller's transaction: the items are
 * locked and checked (locked, supply left to mint, not reserved), then minted through the token
 * flow (src/modules/token-flows). With collection_id (alone or with token_ranges) and no
 * qualifying item, nothing is queued and the list is empty.
 */
export async function createMintRequests(
  db: Executor,
  deps: Deps,
  principal: Principal,
  body: TokenRequestBody,
): Promise<MintRequest[]> {
  const address = checkedAddress(body.to_address, '/to_address');
  const selection = parseItemSelection(body);
  const collection = await collectionOfSelection(db, principal, selection);
  const contract = contractForFlow(collection, 'MINT');
  const to = checkedRecipient(address, contract, '/to_address');
  const quantity = checkedQuantity(body.quantity, contract.tokenType);
  const items = await lockFlowItems(db, { collection, flow: 'MINT', selection, quantity });
  const views = await startTokenFlow(db, deps, { flow: 'MINT', collection, items, quantity, to });
  return views.map(toMintRequest);
}

export async function getMintRequest(db: Executor, principal: Principal, id: string): Promise<MintRequest> {
  return toMintRequest(await getTokenRequest(db, principal, 'MINT', id));
}

export async function listMintRequests(
  db: Executor,
  principal: Principal,
  page: PageParams,
  filters: TokenRequestFilters,
): Promise<PageResult<MintRequest>> {
  const result = await listTokenRequests(db, principal, 'MINT', page, filters);
  return { ...result, results: result.results.map(toMintRequest) };
}
