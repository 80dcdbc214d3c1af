import { chainClients } from '../../chain/clients.ts';
import type { SettlementHandlers } from '../transactions/transaction-settled.task.ts';
import { settleMintTransaction } from './mint-requests.service.ts';

/** Mint requests follow their transaction. */
export const mintRequestSettlementHandlers: SettlementHandlers = {
  MINT: [(db, transaction) => settleMintTransaction(db, chainClients, transaction)],
};
