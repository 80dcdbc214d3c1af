import { Logger as JobLogger, type Runner, run } from 'graphile-worker';
import type { Logger } from 'pino';
import type { AppContext } from './context.ts';
import type { DatabaseHandle } from './db/database.ts';
import { crontabOf, taskListOf } from './jobs/runner.ts';
import { uuidv7 } from './lib/ids.ts';
import { Relayer } from './modules/platform/transactions/relayer.ts';
import { TRANSACTIONS_CHANNEL } from './modules/platform/transactions/transactions.repository.ts';
import { scheduleExpirySweep } from './modules/sales/purchase-intents/purchase-intents.jobs.ts';
import { jobCatalog } from './wiring/jobs.ts';

export interface WorkerOptions {
  concurrency?: number;
  /** Slots of the runner that calls organizations' webhook endpoints (one endpoint holds at most one). */
  webhookConcurrency?: number;
  pollIntervalMs?: number;
  /** The relayer's pass interval when no work is notified; default 500 ms. */
  relayerPollMs?: number;
}

export interface Worker {
  stop(): Promise<void>;
}

/** Background work: the transaction relayer and every task of the job catalog (src/wiring/jobs.ts). */
export async function buildWorker(
  ctx: AppContext,
  database: DatabaseHandle,
  options: WorkerOptions = {},
): Promise<Worker> {
  const webhookTasks = jobCatalog.filter(({ job }) => job.runner === 'webhooks');
  const defaultTasks = jobCatalog.filter(({ job }) => job.runner !== 'webhooks');
  const runner: Runner = await run({
    pgPool: database.pool,
    concurrency: options.concurrency ?? 4,
    pollInterval: options.pollIntervalMs ?? 1000,
    noHandleSignals: true,
    logger: jobLogger(ctx.logger),
    crontab: crontabOf(defaultTasks),
    taskList: taskListOf(defaultTasks, ctx),
  });
  // Webhook deliveries wait up to 10 s on an endpoint: their own runner, whose jobs are queued one
  // named queue per endpoint, so one endpoint takes at most one of these slots and none of the
  // default runner's.
  const webhookRunner: Runner = await run({
    pgPool: database.pool,
    concurrency: options.webhookConcurrency ?? 8,
    pollInterval: options.pollIntervalMs ?? 1000,
    noHandleSignals: true,
    logger: jobLogger(ctx.logger),
    taskList: taskListOf(webhookTasks, ctx),
  });
  // Purchase intents expire by a sweep that queues itself again after each run: its first run.
  await scheduleExpirySweep(ctx.db);
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
      await webhookRunner.stop();
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
