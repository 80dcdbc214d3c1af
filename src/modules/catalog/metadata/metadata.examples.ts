import type { OperationExample } from '../../../http/openapi-examples.ts';
import { address, ids } from '../../../http/openapi-story.ts';

/** Metadata (what the contract's contractURI and tokenURI point at). */
export const metadataExamples: Readonly<Record<string, OperationExample>> = {
  getContractMetadata: {
    params: { collection_id: ids.collection },
    response: {
      name: 'Northwind Genesis',
      symbol: 'NWG',
      image: 'https://cdn.northwind.example/genesis/cover.png',
      seller_fee_basis_points: 500,
      fee_recipient: address.payout,
    },
  },
  getTokenMetadata: {
    params: { collection_id: ids.collection, token_id: '1' },
    response: {
      name: 'Lighthouse at Dawn',
      description: 'The first light over the northern harbor.',
      image: 'https://cdn.northwind.example/genesis/1.png',
      attributes: [{ trait_type: 'edition', value: 1 }],
    },
  },
};
