import { emailClaimVoucherHandler } from './modules/email-claims/email-claims.service.ts';
import type { VoucherRedemptionHandlers } from './modules/mint-vouchers/mint-vouchers.service.ts';
import { purchaseIntentVoucherHandler } from './modules/purchase-intents/purchase-intents.service.ts';

/**
 * What each holder of a mint voucher does when it is redeemed on chain or ends unredeemed, by
 * holder kind (exhaustive: a new kind fails compilation until someone decides what follows).
 */
export const voucherRedemptionHandlers: VoucherRedemptionHandlers = {
  EMAIL_CLAIM: emailClaimVoucherHandler,
  PURCHASE_INTENT: purchaseIntentVoucherHandler,
};
