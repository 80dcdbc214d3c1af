import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { type AppContext, createAppContext, type Ports, type SettlementHandler } from '../context.ts';
import type { Database } from '../db/schema.ts';
import type { Config } from '../lib/config.ts';
import {
  type DeploymentReading,
  deploymentSettlement,
} from '../modules/catalog/collections/deployment-settlement.ts';
import { processCardEvent } from '../modules/payments/card-provider/card-events.ts';
import { cardPaymentSessions } from '../modules/payments/card-provider/card-payment-sessions.ts';
import { processCryptoEvent } from '../modules/payments/crypto-provider/crypto-events.ts';
import { cryptoPaymentSessions } from '../modules/payments/crypto-provider/crypto-payment-sessions.ts';
import {
  emailClaimFlowOwner,
  emailClaimVoucherHandler,
} from '../modules/sales/email-claims/email-claim-settlement.ts';
import { unitsOfCoveredClaims } from '../modules/sales/email-claims/email-claims.service.ts';
import { settleListingsOfDeployment } from '../modules/sales/listings/listings.service.ts';
import {
  purchaseIntentFlowOwner,
  purchaseIntentVoucherHandler,
} from '../modules/sales/purchase-intents/purchase-delivery.service.ts';
import {
  cancelPendingIntentsOfListing,
  lockPendingIntentsOfListing,
  unitsInDelivery,
} from '../modules/sales/purchase-intents/purchase-intents.service.ts';
import { tokenFlowBatches } from '../modules/tokens/token-flows/token-flow-batches.ts';
import { tokenFlowSettlement } from '../modules/tokens/token-flows/token-flow-settlement.ts';

/**
 * A DEPLOY settles the collection first (its deployment leaves PENDING), then the collection's
 * PENDING_TX listings follow what it became.
 */
const deploySettlement: SettlementHandler<DeploymentReading> = {
  read: deploymentSettlement.read,
  async settle(db, deps, transaction, reading) {
    await deploymentSettlement.settle(db, deps, transaction, reading);
    await settleListingsOfDeployment(db, deps, transaction);
  },
};

/** Every port of the context, filled with the modules that implement it. */
export const PORTS: Ports = {
  settlement: {
    DEPLOY: deploySettlement,
    // The token flow's records, items and reservations follow their transaction; then each
    // record's owner (an email claim, a purchase intent) is told of its own records, by kind.
    MINT: tokenFlowSettlement,
    TRANSFER: tokenFlowSettlement,
    // Nothing is waiting on these: their outcome shows on the transaction itself. royalty_info is
    // stored when edited (ROYALTY_UPDATE only mirrors it); funding and gap fills are the relayer's.
    FUNCTION_EXECUTE: null,
    FUNDING: null,
    VOUCHER_SETUP: null,
    ROYALTY_UPDATE: null,
    NONCE_GAP_FILL: null,
  },
  tokenFlowOwners: {
    EMAIL_CLAIM: emailClaimFlowOwner,
    PURCHASE_INTENT: purchaseIntentFlowOwner,
  },
  voucherHolders: {
    EMAIL_CLAIM: emailClaimVoucherHandler,
    PURCHASE_INTENT: purchaseIntentVoucherHandler,
  },
  paymentSessions: {
    CARD_PROVIDER: cardPaymentSessions,
    CRYPTO_PROVIDER: cryptoPaymentSessions,
  },
  providerEvents: {
    'card-provider': processCardEvent,
    'crypto-provider': processCryptoEvent,
  },
  listingDeliveries: {
    lockPendingIntents: lockPendingIntentsOfListing,
    cancelPendingIntents: cancelPendingIntentsOfListing,
    async unitsOwed(db, listingId, exceptClaim) {
      return (
        (await unitsInDelivery(db, listingId)) + (await unitsOfCoveredClaims(db, listingId, exceptClaim))
      );
    },
  },
  batches: tokenFlowBatches,
};

/**
 * The context of a process (or a test) with the ports filled: `ports` replaces some of them (a
 * test's in-memory payment provider).
 */
export function createServiceContext(
  config: Config,
  db: Kysely<Database>,
  logger: Logger,
  ports: Partial<Ports> = {},
): AppContext {
  return createAppContext(config, db, logger, { ...PORTS, ...ports });
}
