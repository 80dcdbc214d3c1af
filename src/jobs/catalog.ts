import { sendMailTask } from '../modules/mail/send-mail.task.ts';
import { transactionSettledTask } from '../modules/transactions/transaction-settled.task.ts';
import { maintenanceTask } from './maintenance.task.ts';
import type { TaskDefinition } from './task.ts';

/**
 * Every background task the worker runs. A new task is declared with `defineTask` in its module's
 * `*.task.ts`, queued with `enqueue` in the transaction of the change that needs it, and listed here.
 */
export const jobCatalog: readonly TaskDefinition[] = [sendMailTask, transactionSettledTask, maintenanceTask];
