import type { SettlementHandlers } from '../transactions/transaction-settled.task.ts';

/** Mint requests follow their transaction. */
export const mintRequestSettlementHandlers: SettlementHandlers = {};
