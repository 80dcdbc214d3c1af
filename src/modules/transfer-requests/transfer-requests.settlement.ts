import type { SettlementHandlers } from '../transactions/transaction-settled.task.ts';
import { settleTransferTransaction } from './transfer-requests.service.ts';

/** Transfer requests follow their transaction. */
export const transferRequestSettlementHandlers: SettlementHandlers = {
  TRANSFER: [settleTransferTransaction],
};
