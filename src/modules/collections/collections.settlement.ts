import { chainClients } from '../../chain/clients.ts';
import type { SettlementHandlers } from '../transactions/transaction-settled.task.ts';
import { settleDeployment } from './collections.service.ts';

/**
 * Reactions to settled transactions: a DEPLOY moves its collection's deployment out of PENDING.
 * ROYALTY_UPDATE needs none: royalty_info is stored when edited, the transaction only mirrors it.
 */
export const collectionSettlementHandlers: SettlementHandlers = {
  DEPLOY: [(db, transaction) => settleDeployment(db, chainClients, transaction)],
};
