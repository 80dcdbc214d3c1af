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
import type { MintRequest, TokenRequestBody } from './mint-requests.schemas.ts';

export function toMintRequest(view: TokenRequestView): MintRequest {
  return { ...tokenRequestRecord(view), quantity: view.quantity };
}

/** Request mint: see requestTokens (src/modules/tokens/token-flows). */
export async function createMintRequests(
  db: Tx,
  deps: Deps,
  principal: Principal,
  body: TokenRequestBody,
): Promise<MintRequest[]> {
  return (await requestTokens(db, deps, principal, 'MINT', body)).map(toMintRequest);
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
