import type { SettlementHandlers } from '../transactions/transaction-settled.task.ts';

/** Reactions to settled deployment and royalty transactions. */
export const collectionSettlementHandlers: SettlementHandlers = {};
