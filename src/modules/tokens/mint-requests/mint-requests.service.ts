import type { Principal } from '../../../access/principal.ts';
import type { Deps } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { TransactionRow } from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { emitEvent } from '../../platform/webhooks/webhook-events.service.ts';
import {
  findTokenRequests,
  getTokenRequest,
  listTokenRequests,
  requestTokens,
  settleMintTransaction,
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
  db: Executor,
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

/**
 * A MINT transaction settled (src/wiring/settlement.ts): its requests follow it (token-flows), and each
 * one this settlement moved emits mint_request.completed or mint_request.failed in the same database
 * transaction.
 */
export async function settleMintRequests(
  db: Executor,
  deps: Deps,
  transaction: TransactionRow,
): Promise<void> {
  const settled = await settleMintTransaction(db, deps, transaction);
  for (const view of await findTokenRequests(db, 'MINT', settled))
    await emitEvent(db, {
      organizationId: view.organization_id,
      type: view.state === 'COMPLETED' ? 'mint_request.completed' : 'mint_request.failed',
      resourceId: view.id,
      data: toMintRequest(view),
    });
}
