import { collectionSettlementHandlers } from './modules/collections/collections.settlement.ts';
import { mintRequestSettlementHandlers } from './modules/mint-requests/mint-requests.settlement.ts';
import type { SettlementHandlers } from './modules/transactions/transaction-settled.task.ts';
import { transferRequestSettlementHandlers } from './modules/transfer-requests/transfer-requests.settlement.ts';

/** Every module's reactions to settled transactions, merged by transaction type. */
export function allSettlementHandlers(): SettlementHandlers {
  const merged: SettlementHandlers = {};
  for (const handlers of [
    collectionSettlementHandlers,
    mintRequestSettlementHandlers,
    transferRequestSettlementHandlers,
  ]) {
    for (const [type, list] of Object.entries(handlers) as [
      keyof SettlementHandlers,
      SettlementHandlers[keyof SettlementHandlers],
    ][]) {
      merged[type] = [...(merged[type] ?? []), ...(list ?? [])];
    }
  }
  return merged;
}
