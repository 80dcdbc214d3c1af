import type { OperationExample } from '../../../http/openapi-examples.ts';
import { address, ids, page, txHash } from '../../../http/openapi-story.ts';

const transferRequest = {
  id: ids.transferRequest,
  item_id: ids.items[2],
  collection_id: ids.collection,
  token_id: '3',
  state: 'SUBMITTED',
  to_address: address.otherCollector,
  transaction_id: ids.transferTransaction,
  tx_hash: txHash.transfer,
  failure_reason: null,
  created_at: '2026-11-22T14:01:57.144Z',
  quantity: 1,
};

/** Transfer requests: token 3 sent to another collector. */
export const transferRequestsExamples: Readonly<Record<string, OperationExample>> = {
  listTransferRequests: { response: page([transferRequest]) },
  createTransferRequests: {
    request: { item_id: ids.items[2], to_address: address.otherCollector },
    response: { transfer_requests: [{ ...transferRequest, state: 'PENDING', tx_hash: null }] },
  },
  getTransferRequest: { params: { transfer_request_id: ids.transferRequest }, response: transferRequest },
};
