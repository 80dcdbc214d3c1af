import type { OperationExample } from '../../../http/openapi-examples.ts';
import { address, ids, page, txHash } from '../../../http/openapi-story.ts';

const CLAIM_TOKEN = 'IEF48Mcl403tMgu-8x7nq8DQQp0XvrPwuJSCXlsNtjM';

/** An email claim of token 4, mailed and not yet redeemed. */
const emailClaim = {
  id: ids.emailClaim,
  email: 'joan@example.com',
  item_id: ids.claimItem,
  collection_id: ids.collection,
  quantity: 1,
  token_id: '4',
  voucher_id: null,
  tx_payer: 'SELLER',
  type: 'giveaway',
  tx_hash: null,
  active: true,
  claimed: false,
  claimed_at: null,
  created_at: '2026-11-23T10:15:42.118Z',
  expiration: '2026-11-30T10:15:42.118Z',
  last_pin_code_email_sent_at: null,
  campaign_id: ids.campaign,
  mail_status: 'PENDING',
  mail_error: null,
};

/** The same claim, redeemed to the claimer's address. */
const claimedEmailClaim = {
  ...emailClaim,
  tx_hash: txHash.claim,
  claimed: true,
  claimed_at: '2026-11-23T10:22:05.731Z',
  last_pin_code_email_sent_at: '2026-11-23T10:20:48.502Z',
  mail_status: 'SENT',
};

const claimItemView = {
  name: 'Harbor at Dusk',
  image: 'https://cdn.northwind.example/genesis/4.png',
  collection_name: 'Northwind Genesis',
  token_id: '4',
};

/** Email claims: an item held for an address, redeemed from the mailed link with a mailed PIN. */
export const emailClaimsExamples: Readonly<Record<string, OperationExample>> = {
  listEmailClaims: { response: page([claimedEmailClaim]) },
  createEmailClaim: {
    request: {
      email: 'joan@example.com',
      item_id: ids.claimItem,
      quantity: 1,
      type: 'giveaway',
      campaign_id: ids.campaign,
    },
    response: emailClaim,
  },
  getEmailClaim: { params: { claim_id: ids.emailClaim }, response: claimedEmailClaim },
  resendEmailClaim: {
    params: { claim_id: ids.emailClaim },
    request: { email: 'joan.doe@example.com' },
    response: { ...emailClaim, email: 'joan.doe@example.com' },
  },
  revokeEmailClaim: {
    params: { claim_id: ids.emailClaim },
    response: { ...emailClaim, active: false, mail_status: 'SENT' },
  },
  getPublicEmailClaim: {
    params: { claim_token: CLAIM_TOKEN },
    response: {
      status: 'CLAIMED',
      expiration: emailClaim.expiration,
      tx_payer: 'SELLER',
      item: claimItemView,
      email_hint: 'j***@example.com',
      pin: null,
      delivery: {
        transaction_id: ids.claimTransaction,
        state: 'COMPLETED',
        tx_hash: txHash.claim,
        to_address: address.claimer,
        token_id: '4',
        network_id: 31337,
        contract_address: address.contract,
      },
      voucher: null,
    },
  },
  verifyEmailClaim: {
    params: { claim_token: CLAIM_TOKEN },
    response: { sent_at: '2026-11-23T10:20:48.502Z', expires_at: '2026-11-23T10:35:48.502Z', tries_left: 5 },
  },
  redeemEmailClaim: {
    params: { claim_token: CLAIM_TOKEN },
    request: { address: address.claimer, pin: '482913' },
    response: { status: 'CLAIMED', transaction_id: ids.claimTransaction, voucher: null },
  },
};
