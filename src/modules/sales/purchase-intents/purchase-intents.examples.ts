import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, page } from '../../../http/openapi-story.ts';

const purchaseIntent = {
  id: ids.purchaseIntent,
  listing_id: ids.listing,
  quantity: 1,
  status: 'CONFIRMED',
  fulfillment_status: 'COMPLETED',
  fulfillment_method: 'EMAIL',
  payment_provider: 'EMAIL_CLAIM',
  email: 'grace@collectors.example',
  eth_address: null,
  item_ids: [ids.items[0]],
  item_claim_ids: [ids.saleEmailClaim],
  transaction_ids: [],
  provider_price: { amount: '0', currency: 'USD' },
  card_provider_payment_intent_id: null,
  crypto_provider_charge_id: null,
  fulfillment_error: null,
  payment_mismatch: null,
  created_at: '2026-11-22T10:00:00.000Z',
  expiration: '2026-11-22T10:15:00.000Z',
  confirmed_at: '2026-11-22T10:00:00.000Z',
};

/** A buyer's purchase from the listing, fulfilled by email claim. */
export const purchaseIntentsExamples: Readonly<Record<string, OperationExample>> = {
  createPurchaseIntent: {
    request: {
      listing_id: ids.listing,
      quantity: 1,
      provider: 'EMAIL_CLAIM',
      buyer: { email: 'grace@collectors.example' },
    },
    response: {
      id: ids.purchaseIntent,
      status: 'CONFIRMED',
      expiration: '2026-11-22T10:15:00.000Z',
      client_token: 'Q2xpZW50LXRva2VuLW9mLXRoZS1idXllci0xMjM0NTY',
      fulfillment_method: 'EMAIL',
      provider_price: { amount: '0', currency: 'USD' },
      data: null,
    },
  },
  getPublicPurchaseIntent: {
    params: { purchase_intent_id: ids.purchaseIntent },
    response: {
      id: ids.purchaseIntent,
      listing_id: ids.listing,
      quantity: 1,
      status: 'CONFIRMED',
      fulfillment_status: 'COMPLETED',
      fulfillment_method: 'EMAIL',
      payment_provider: 'EMAIL_CLAIM',
      provider_price: { amount: '0', currency: 'USD' },
      data: null,
      item_claim_ids: [ids.saleEmailClaim],
      transaction_ids: [],
      created_at: '2026-11-22T10:00:00.000Z',
      expiration: '2026-11-22T10:15:00.000Z',
    },
  },
  cancelPublicPurchaseIntent: { params: { purchase_intent_id: ids.purchaseIntent } },
  listPurchaseIntents: { response: page([purchaseIntent]) },
  getPurchaseIntent: { params: { purchase_intent_id: ids.purchaseIntent }, response: purchaseIntent },
};
