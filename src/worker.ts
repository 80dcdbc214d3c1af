import { Logger as JobLogger, type Runner, run } from 'graphile-worker';
import type { Logger } from 'pino';
import type { AppContext } from './context.ts';
import type { DatabaseHandle } from './db/database.ts';
import { deleteExpiredIdempotencyKeys } from './http/idempotency.ts';
import { deleteExpiredRateLimitBuckets } from './http/rate-limit.ts';
import { SEND_MAIL_TASK } from './modules/mail/mail.repository.ts';
import type { Delivery } from './modules/mail/mail.service.ts';
import { sendMailTask } from './modules/mail/send-mail.task.ts';

export interface WorkerOptions {
  delivery: Delivery;
  concurrency?: number;
  pollIntervalMs?: number;
}

export interface Worker {
  stop(): Promise<void>;
}

const MAINTENANCE_TASK = 'maintenance';

/** Background work: the mail outbox now; the relayer and watchers join here. */
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
      [MAINTENANCE_TASK]: async () => {
        await deleteExpiredIdempotencyKeys(ctx.db);
        await deleteExpiredRateLimitBuckets(ctx.db, 24 * 3600);
      },
    },
  });
  return {
    async stop() {
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
