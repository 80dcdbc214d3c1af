import { expireEmailClaimsTask } from '../modules/email-claims/email-claims.task.ts';
import { sendMailTask } from '../modules/mail/send-mail.task.ts';
import { watchMintVouchersTask } from '../modules/mint-vouchers/mint-vouchers.task.ts';
import { retryProviderEventsTask } from '../modules/provider-events/provider-events.task.ts';
import {
  cancelPaymentSessionTask,
  deliverPurchaseIntentTask,
  expirePurchaseIntentsTask,
  expirePurchaseIntentTask,
  reconcilePurchasePaymentsTask,
} from '../modules/purchase-intents/purchase-intents.task.ts';
import { transactionSettledTask } from '../modules/transactions/transaction-settled.task.ts';
import { deliverWebhookTask } from '../modules/webhooks/deliver-webhook.task.ts';
import { maintenanceTask } from './maintenance.task.ts';
import type { TaskDefinition } from './task.ts';

/**
 * Every background task the worker runs. A new task is declared with `defineTask` in its module's
 * `*.task.ts`, queued with `enqueue` in the transaction of the change that needs it, and listed here.
 */
export const jobCatalog: readonly TaskDefinition[] = [
  sendMailTask,
  transactionSettledTask,
  deliverWebhookTask,
  maintenanceTask,
  expireEmailClaimsTask,
  deliverPurchaseIntentTask,
  expirePurchaseIntentTask,
  expirePurchaseIntentsTask,
  cancelPaymentSessionTask,
  reconcilePurchasePaymentsTask,
  retryProviderEventsTask,
  watchMintVouchersTask,
];
