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
  settleTransferTransaction,
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
  db: Executor,
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

/**
 * A TRANSFER transaction settled (src/wiring/settlement.ts): its requests follow it (token-flows), and each
 * one this settlement moved emits transfer_request.completed or transfer_request.failed in the same database
 * transaction.
 */
export async function settleTransferRequests(
  db: Executor,
  deps: Deps,
  transaction: TransactionRow,
): Promise<void> {
  const settled = await settleTransferTransaction(db, deps, transaction);
  for (const view of await findTokenRequests(db, 'TRANSFER', settled))
    await emitEvent(db, {
      organizationId: view.organization_id,
      type: view.state === 'COMPLETED' ? 'transfer_request.completed' : 'transfer_request.failed',
      resourceId: view.id,
      data: toTransferRequest(view),
    });
}
