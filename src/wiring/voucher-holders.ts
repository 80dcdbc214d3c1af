import { emailClaimVoucherHandler } from '../modules/sales/email-claims/email-claims.service.ts';
import { purchaseIntentVoucherHandler } from '../modules/sales/purchase-intents/purchase-intents.service.ts';
import type { VoucherRedemptionHandlers } from '../modules/tokens/mint-vouchers/mint-vouchers.service.ts';

/**
 * What each holder of a mint voucher does when it is redeemed on chain or ends unredeemed, by
 * holder kind (exhaustive: a new kind fails compilation until someone decides what follows).
 */
export const voucherRedemptionHandlers: VoucherRedemptionHandlers = {
  EMAIL_CLAIM: emailClaimVoucherHandler,
  PURCHASE_INTENT: purchaseIntentVoucherHandler,
};
