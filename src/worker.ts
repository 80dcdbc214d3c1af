import { Logger as JobLogger, type Runner, run } from 'graphile-worker';
import type { Logger } from 'pino';
import type { AppContext } from './context.ts';
import type { DatabaseHandle } from './db/database.ts';
import { deleteExpiredIdempotencyKeys } from './http/idempotency.ts';
import { deleteExpiredRateLimitBuckets } from './http/rate-limit.ts';
import { uuidv7 } from './lib/ids.ts';
import { SEND_MAIL_TASK } from './modules/mail/mail.repository.ts';
import type { Delivery } from './modules/mail/mail.service.ts';
import { sendMailTask } from './modules/mail/send-mail.task.ts';
import { Relayer } from './modules/transactions/relayer.ts';
import {
  type SettlementHandlers,
  transactionSettledTask,
} from './modules/transactions/transaction-settled.task.ts';
import {
  TRANSACTION_SETTLED_TASK,
  TRANSACTIONS_CHANNEL,
} from './modules/transactions/transactions.repository.ts';
import { settlementHandlers } from './settlement.ts';

export interface WorkerOptions {
  delivery: Delivery;
  concurrency?: number;
  pollIntervalMs?: number;
  /** The relayer's pass interval when no work is notified; default 500 ms. */
  relayerPollMs?: number;
  /** Modules' reactions to settled transactions; default every module's (src/settlement.ts). */
  settlementHandlers?: SettlementHandlers;
}

export interface Worker {
  stop(): Promise<void>;
}

const MAINTENANCE_TASK = 'maintenance';

/** Background work: the transaction relayer, the mail outbox, settlement reactions, maintenance. */
export async function buildWorker(
  ctx: AppContext,
  database: DatabaseHandle,
  options: WorkerOptions,
): Promise<Worker> {
  const runner: Runner = await run({
    pgPool: database.pool,
    concurrency: options.concurrency ?? 4,
    pollInterval: options.pollIntervalMs ?? 1000,
    noHandleSignals: true,
    logger: jobLogger(ctx.logger),
    // Hourly clean-up of expired idempotency records and rate-limit windows.
    crontab: `0 * * * * ${MAINTENANCE_TASK}`,
    taskList: {
      [SEND_MAIL_TASK]: sendMailTask(ctx.db, options.delivery, ctx.logger),
      [TRANSACTION_SETTLED_TASK]: transactionSettledTask(
        ctx,
        options.settlementHandlers ?? settlementHandlers,
      ),
      [MAINTENANCE_TASK]: async () => {
        await deleteExpiredIdempotencyKeys(ctx.db);
        await deleteExpiredRateLimitBuckets(ctx.db, 24 * 3600);
      },
    },
  });
  const relayer = new Relayer(ctx, {
    instanceId: `relayer-${uuidv7()}`,
    pollMs: options.relayerPollMs ?? 500,
  });
  relayer.start();
  // New transactions wake the relayer at once instead of at its next poll.
  const listener = await database.pool.connect().catch(() => undefined);
  if (listener) {
    listener.on('notification', () => relayer.poke());
    await listener.query(`LISTEN ${TRANSACTIONS_CHANNEL}`).catch(() => {});
  }
  return {
    async stop() {
      await relayer.stop();
      if (listener) {
        await listener.query(`UNLISTEN ${TRANSACTIONS_CHANNEL}`).catch(() => {});
        listener.release();
      }
      await runner.stop();
    },
  };
}

function jobLogger(logger: Logger): JobLogger {
  const child = logger.child({ component: 'jobs' });
  return new JobLogger(() => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
    child[method](meta ?? {}, message);
  });
}
