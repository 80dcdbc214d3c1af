import { settleDeployment } from './modules/collections/deployment-settlement.ts';
import {
  settleMintTransaction,
  settleTransferTransaction,
} from './modules/token-flows/token-flows.service.ts';
import type { SettlementHandlers } from './modules/transactions/transaction-settled.task.ts';

/** Every module's reaction to a settled transaction, by transaction type (exhaustive). */
export const settlementHandlers: SettlementHandlers = {
  // The collection's deployment leaves PENDING.
  DEPLOY: [settleDeployment],
  // The token flow's records, items and reservations follow their transaction.
  MINT: [settleMintTransaction],
  TRANSFER: [settleTransferTransaction],
  // Nothing is waiting on these: their outcome shows on the transaction itself. royalty_info is
  // stored when edited (ROYALTY_UPDATE only mirrors it); funding and gap fills are the relayer's.
  FUNCTION_EXECUTE: [],
  FUNDING: [],
  VOUCHER_SETUP: [],
  ROYALTY_UPDATE: [],
  NONCE_GAP_FILL: [],
};
