import type { OperationExample } from '../../../http/openapi-examples.ts';
import { address, ids, NEXT_CURSOR, page, txHash } from '../../../http/openapi-story.ts';

const mintTransaction = {
  id: ids.mintTransaction,
  organization_id: ids.organization,
  network_id: 31337,
  wallet_id: ids.wallet,
  type: 'MINT',
  state: 'COMPLETED',
  from_address: address.wallet,
  to_address: address.contract,
  value: '0',
  nonce: 4,
  tx_hash: txHash.mint,
  attempts: 1,
  gas_limit: '184212',
  fees: {
    max_fee_per_gas: '2000000000',
    max_priority_fee_per_gas: '1000000000',
    gas_price: null,
    gas_used: '153510',
    effective_gas_price: '1875000000',
    fee: '287831250000000',
  },
  on_chain_status: 'SUCCESS',
  block_number: 112,
  contract_address: null,
  failure_reason: null,
  last_error: null,
  created_at: '2026-11-22T11:01:47.647Z',
  updated_at: '2026-11-22T11:01:53.208Z',
  completed_at: '2026-11-22T11:01:53.208Z',
};

const deployTransaction = {
  ...mintTransaction,
  id: ids.deployTransaction,
  type: 'DEPLOY',
  to_address: null,
  nonce: 0,
  tx_hash: txHash.deploy,
  gas_limit: '4381904',
  fees: { ...mintTransaction.fees, gas_used: '3651587', fee: '6846725625000000' },
  block_number: 97,
  contract_address: address.contract,
  created_at: '2026-11-22T07:57:58.999Z',
  updated_at: '2026-11-22T07:58:04.512Z',
  completed_at: '2026-11-22T07:58:04.512Z',
};

/** The relayer's transactions: the deploy and a mint. */
export const transactionsExamples: Readonly<Record<string, OperationExample>> = {
  listTransactions: {
    response: page([deployTransaction, mintTransaction], { cursor: NEXT_CURSOR, total_results: 7 }),
  },
  getTransaction: { params: { transaction_id: ids.mintTransaction }, response: mintTransaction },
};
