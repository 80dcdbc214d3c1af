import type { JobEntry } from '../jobs/job.ts';
import { sendMailTask } from '../modules/platform/mail/send-mail.task.ts';
import { maintenanceTask } from '../modules/platform/maintenance/maintenance.task.ts';
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
 * Every job the worker runs, each declaration with its handler. A new job is declared with
 * `declareJob` in its module's `<group>.jobs.ts`, queued with `enqueue` in the transaction of the
 * change that needs it, handled in a `*.task.ts` beside it (`handleJob`), and listed here.
 */
export const jobCatalog: readonly JobEntry[] = [
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
