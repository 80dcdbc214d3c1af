import type { OperationExample } from '../../../http/openapi-examples.ts';
import { address, ids, page, txHash } from '../../../http/openapi-story.ts';

const mintRequest = {
  id: ids.mintRequests[0],
  item_id: ids.items[0],
  collection_id: ids.collection,
  token_id: '1',
  state: 'COMPLETED',
  to_address: address.collector,
  transaction_id: ids.mintTransaction,
  tx_hash: txHash.mint,
  failure_reason: null,
  created_at: '2026-11-22T11:01:47.647Z',
  quantity: '1',
};

const newMintRequests = [
  { ...mintRequest, state: 'PENDING', tx_hash: null },
  {
    ...mintRequest,
    id: ids.mintRequests[1],
    item_id: ids.items[1],
    token_id: '2',
    state: 'PENDING',
    tx_hash: null,
  },
];

/** Mint requests: tokens 1 and 2 minted to a collector. */
export const mintRequestsExamples: Readonly<Record<string, OperationExample>> = {
  listMintRequests: { response: page([mintRequest]) },
  createMintRequests: {
    request: {
      collection_id: ids.collection,
      token_ranges: [{ from_id: '1', to_id: '2' }],
      to_address: address.collector,
    },
    response: { mint_requests: newMintRequests },
  },
  getMintRequest: { params: { mint_request_id: ids.mintRequests[0] }, response: mintRequest },
};
