import { maintenanceTask } from '../jobs/maintenance.task.ts';
import type { TaskDefinition } from '../jobs/task.ts';
import { sendMailTask } from '../modules/platform/mail/send-mail.task.ts';
import { retryProviderEventsTask } from '../modules/platform/provider-events/provider-events.task.ts';
import { transactionSettledTask } from '../modules/platform/transactions/transaction-settled.task.ts';
import { deliverWebhookTask } from '../modules/platform/webhooks/deliver-webhook.task.ts';
import { expireEmailClaimsTask } from '../modules/sales/email-claims/email-claims.task.ts';
import {
  cancelPaymentSessionTask,
  deliverPurchaseIntentTask,
  expirePurchaseIntentsTask,
  expirePurchaseIntentTask,
  reconcilePurchasePaymentsTask,
} from '../modules/sales/purchase-intents/purchase-intents.task.ts';
import { watchMintVouchersTask } from '../modules/tokens/mint-vouchers/mint-vouchers.task.ts';

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
