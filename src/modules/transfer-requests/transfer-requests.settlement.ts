import type { SettlementHandlers } from '../transactions/transaction-settled.task.ts';

/** Transfer requests follow their transaction. */
export const transferRequestSettlementHandlers: SettlementHandlers = {};
