import type { OperationExample } from '../../../http/openapi-examples.ts';
import { address, ids, page } from '../../../http/openapi-story.ts';

const listing = {
  id: ids.listing,
  status: 'ACTIVE',
  collection_id: ids.collection,
  item_id: null,
  quantity_listed: 100,
  quantity_remaining: 98,
  sale_type: 'DEFAULT',
  price: '0',
  currency: 'USD',
  settlement_currency: { EMAIL_CLAIM: 'USD' },
  max_quantity_per_tx: 2,
  payment_providers: ['EMAIL_CLAIM'],
  start_time: null,
  end_time: null,
  policy: {
    type: 'FCFS',
    max_per_user: 2,
    payment_session_duration: { timeout_seconds: 900, provider_override: {} },
    email_claim_duration: 604800,
    item_assignment_strategy: 'AUTOMATIC',
    tx_payer: 'SELLER',
    email_addresses: null,
    eth_addresses: null,
  },
  campaign_id: null,
  created_at: '2026-11-22T09:30:00.000Z',
  updated_at: '2026-11-22T09:30:00.000Z',
};

/** A free listing of the collection, sold by email claim. */
export const listingsExamples: Readonly<Record<string, OperationExample>> = {
  createListing: {
    request: {
      collection_id: ids.collection,
      token_ranges: [{ from_id: '1', to_id: '100' }],
      currency: 'USD',
      price: '0',
      max_quantity_per_tx: 2,
      payment_providers: ['EMAIL_CLAIM'],
      policy: { type: 'FCFS', max_per_user: 2, email_claim_duration: 604800 },
    },
    response: listing,
  },
  listListings: { response: page([listing]) },
  getListing: { params: { listing_id: ids.listing }, response: listing },
  editListing: {
    params: { listing_id: ids.listing },
    request: { end_time: '2026-12-24T18:00:00.000Z' },
    response: { ...listing, end_time: '2026-12-24T18:00:00.000Z' },
  },
  cancelListing: {
    params: { listing_id: ids.listing },
    response: { ...listing, status: 'CANCELLED' },
  },
  getPublicListing: {
    params: { listing_id: ids.listing },
    response: {
      id: ids.listing,
      status: 'ACTIVE',
      collection_id: ids.collection,
      item_id: null,
      network_id: 31337,
      contract_address: address.contract,
      token_type: 'ERC721',
      quantity_listed: 100,
      quantity_remaining: 98,
      quantity_available: 97,
      price: '0',
      currency: 'USD',
      settlement_currency: { EMAIL_CLAIM: 'USD' },
      max_quantity_per_tx: 2,
      payment_providers: ['EMAIL_CLAIM'],
      start_time: null,
      end_time: null,
      policy: { type: 'FCFS', max_per_user: 2, tx_payer: 'SELLER' },
    },
  },
  getListingEligibility: {
    params: { listing_id: ids.listing },
    response: { is_eligible: true, quantity_claimed: 1, quantity_allowed: 1, reason: null },
  },
};
