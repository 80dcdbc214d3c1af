import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, NEXT_CURSOR, page } from '../../../http/openapi-story.ts';

const attributes = {
  name: 'Lighthouse at Dawn',
  description: 'The first light over the northern harbor.',
  image: 'https://cdn.northwind.example/genesis/1.png',
  edition: 1,
};

const newItem = {
  id: ids.items[0],
  collection_id: ids.collection,
  item_type_id: ids.itemType,
  attributes,
  locked: false,
  max_supply: null,
  token_id: null,
  token_status: 'NOT_MINTED',
  media: { image: attributes.image },
  royalty_info: null,
  created_at: '2026-11-21T10:03:56.409Z',
  updated_at: '2026-11-21T10:03:56.409Z',
};

const mintedItem = {
  ...newItem,
  locked: true,
  max_supply: '1',
  token_id: '1',
  token_status: 'MINTED',
  updated_at: '2026-11-22T11:01:53.208Z',
};

/** The collection's items: created, locked and minted. */
export const itemsExamples: Readonly<Record<string, OperationExample>> = {
  listItems: { response: page([mintedItem], { cursor: NEXT_CURSOR, total_results: 250 }) },
  createItem: { request: { collection_id: ids.collection, attributes }, response: newItem },
  bulkCreateItems: {
    request: {
      items: [
        { collection_id: ids.collection, attributes },
        {
          collection_id: ids.collection,
          attributes: {
            name: 'Harbor Fog',
            image: 'https://cdn.northwind.example/genesis/2.png',
            edition: 2,
          },
        },
        {
          collection_id: ids.collection,
          attributes: {
            name: 'Night Ferry',
            image: 'https://cdn.northwind.example/genesis/3.png',
            edition: 3,
          },
        },
      ],
    },
    response: { item_ids: ids.items },
  },
  lockItems: {
    request: { collection_id: ids.collection },
    response: {
      lock_outputs: ids.items.map((item_id, i) => ({ item_id, max_supply: '1', token_id: String(i + 1) })),
    },
  },
  getItem: { params: { item_id: ids.items[0] }, response: mintedItem },
  editItem: {
    params: { item_id: ids.items[0] },
    request: { attributes: { ...attributes, description: 'First light over the northern harbor, 2026.' } },
    response: {
      ...mintedItem,
      attributes: { ...attributes, description: 'First light over the northern harbor, 2026.' },
    },
  },
  deleteItem: { params: { item_id: ids.items[1] } },
  getItemStatus: {
    params: { item_id: ids.items[0] },
    response: {
      email_claim_ids: [],
      listing_ids: [],
      mint_request_ids: [ids.mintRequests[0]],
      transfer_request_ids: [],
      reservations: { mint: 0, transfer: 0 },
      supply: { current: '1', total: '1' },
    },
  },
};
