import type { Principal } from '../../../access/principal.ts';
import type { Deps } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import {
  getTokenRequest,
  listTokenRequests,
  requestTokens,
  type TokenRequestFilters,
  type TokenRequestView,
  tokenRequestRecord,
} from '../token-flows/token-flows.service.ts';
import type { TokenRequestBody, TransferRequest } from './transfer-requests.schemas.ts';

export function toTransferRequest(view: TokenRequestView): TransferRequest {
  // At most Number.MAX_SAFE_INTEGER: checked on create.
  return { ...tokenRequestRecord(view), quantity: Number(view.quantity) };
}

/**
 * Request transfer, from the organization's wallet: see requestTokens
 * (src/modules/tokens/token-flows). Transfer records carry quantity as a JSON integer (the
 * TransferRequest schema; mint requests carry a Uint256 string), so it is at most
 * Number.MAX_SAFE_INTEGER.
 */
export async function createTransferRequests(
  db: Tx,
  deps: Deps,
  principal: Principal,
  body: TokenRequestBody,
): Promise<TransferRequest[]> {
  const views = await requestTokens(db, deps, principal, 'TRANSFER', body, {
    maxQuantity: BigInt(Number.MAX_SAFE_INTEGER),
  });
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
