import { cardPaymentSessions } from '../modules/payments/card-provider/card-payment-sessions.ts';
import { cryptoPaymentSessions } from '../modules/payments/crypto-provider/crypto-payment-sessions.ts';
import type {
  ExternalPaymentProvider,
  PaymentSessions,
} from '../modules/sales/purchase-intents/payment-sessions.ts';

/**
 * The payment sessions of each provider a buyer pays outside the chain (card, crypto): what
 * purchase intents and listings call to open, cancel and check a payment at the provider.
 * A provider missing here cannot be sold through (its listings answer NOT_READY).
 */
export const paymentSessions: Partial<Record<ExternalPaymentProvider, PaymentSessions>> = {
  CARD_PROVIDER: cardPaymentSessions,
  CRYPTO_PROVIDER: cryptoPaymentSessions,
};
