import { settleDeployment } from '../modules/catalog/collections/deployment-settlement.ts';
import type { SettlementHandlers } from '../modules/platform/transactions/transaction-settled.task.ts';
import { settleEmailClaimDelivery } from '../modules/sales/email-claims/email-claims.service.ts';
import { settleListingsOfDeployment } from '../modules/sales/listings/listings.service.ts';
import { settlePurchaseDelivery } from '../modules/sales/purchase-intents/purchase-intents.service.ts';
import { settleMintRequests } from '../modules/tokens/mint-requests/mint-requests.service.ts';
import { settleTransferRequests } from '../modules/tokens/transfer-requests/transfer-requests.service.ts';

/** Every module's reaction to a settled transaction, by transaction type (exhaustive). */
export const settlementHandlers: SettlementHandlers = {
  // The collection's deployment leaves PENDING, then its PENDING_TX listings follow it.
  DEPLOY: [settleDeployment, settleListingsOfDeployment],
  // The token flow's records, items and reservations follow their transaction; each request
  // settled emits its event. An email claim settles first, while the record it handed its
  // reservation to is still open (it acts once); a purchase's delivery likewise.
  MINT: [settleEmailClaimDelivery, settlePurchaseDelivery, settleMintRequests],
  TRANSFER: [settleEmailClaimDelivery, settlePurchaseDelivery, settleTransferRequests],
  // Nothing is waiting on these: their outcome shows on the transaction itself. royalty_info is
  // stored when edited (ROYALTY_UPDATE only mirrors it); funding and gap fills are the relayer's.
  FUNCTION_EXECUTE: [],
  FUNDING: [],
  VOUCHER_SETUP: [],
  ROYALTY_UPDATE: [],
  NONCE_GAP_FILL: [],
};
