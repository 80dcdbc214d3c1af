import { Type } from '@sinclair/typebox';
import type { Executor } from '../../../db/executor.ts';
import { enqueue } from '../../../jobs/enqueue.ts';
import { defineTask, JobUuid } from '../../../jobs/task.ts';

/**
 * The intents' background work. Handlers are loaded when a job runs: the service queues these
 * tasks, so importing it here would be an import cycle.
 */

/** Delivers a confirmed intent (keyed by the intent: queued once, delivered once). */
export const deliverPurchaseIntentTask = defineTask({
  name: 'deliver_purchase_intent',
  payload: Type.Object({ purchase_intent_id: JobUuid }),
  async handler(payload, _helpers, ctx) {
    const { deliverPurchaseIntent } = await import('./purchase-intents.service.ts');
    await ctx.db.transaction().execute((tx) => deliverPurchaseIntent(tx, ctx, payload.purchase_intent_id));
  },
});

/**
 * One intent's expiry: still PENDING and due, it becomes EXPIRED and its hold ends (a payment
 * provider's session is settled with the provider first; a provider out of reach retries the job).
 * Intents no longer queue it (the sweep expires them); it runs the jobs already queued.
 */
export const expirePurchaseIntentTask = defineTask({
  name: 'expire_purchase_intent',
  payload: Type.Object({ purchase_intent_id: JobUuid }),
  async handler(payload, _helpers, ctx) {
    const { expireIntentWithProvider } = await import('./purchase-payments.service.ts');
    await expireIntentWithProvider(ctx.db, ctx, payload.purchase_intent_id);
  },
});

/** How long after its expiration a PENDING intent is expired at most, give or take a sweep. */
export const EXPIRY_SWEEP_MS = 2_000;

/**
 * The expiry sweep: every due PENDING intent expires and its hold ends. It queues itself again
 * EXPIRY_SWEEP_MS after each run (one chain, by its job key: a run queued again replaces the one
 * waiting); the worker starts the chain, and the minute's cron run restarts one lost to a crash.
 * An intent queues nothing when it is created: a hold costs no job.
 */
export const expirePurchaseIntentsTask = defineTask({
  name: 'expire_purchase_intents',
  payload: Type.Object({ _cron: Type.Optional(Type.Unknown()) }),
  schedule: '* * * * *',
  async handler(_payload, _helpers, ctx) {
    const { expireDueIntents } = await import('./purchase-payments.service.ts');
    try {
      const expired = await expireDueIntents(ctx.db, ctx);
      if (expired > 0) ctx.logger.info({ expired }, 'purchase intents expired');
    } catch (error) {
      // The next run tries again, rather than graphile-worker's growing backoff.
      ctx.logger.warn({ err: error }, 'the purchase intent expiry sweep failed');
    }
    await scheduleExpirySweep(ctx.db, EXPIRY_SWEEP_MS);
  },
});

/** Queues the expiry sweep (replacing the one waiting, if any) `delayMs` from now. */
export async function scheduleExpirySweep(db: Executor, delayMs = 0): Promise<void> {
  await enqueue(
    db,
    expirePurchaseIntentsTask,
    {},
    { jobKey: 'expire_purchase_intents', runAt: new Date(Date.now() + delayMs) },
  );
}

/** Cancels the provider's session of an intent that ended here (keyed by the intent; retried). */
export const cancelPaymentSessionTask = defineTask({
  name: 'cancel_payment_session',
  payload: Type.Object({ purchase_intent_id: JobUuid }),
  async handler(payload, _helpers, ctx) {
    const { cancelPaymentSession } = await import('./purchase-payments.service.ts');
    await cancelPaymentSession(ctx.db, ctx, payload.purchase_intent_id);
  },
});

/** Every five minutes: payable intents are asked about at their provider (a missed event). */
export const reconcilePurchasePaymentsTask = defineTask({
  name: 'reconcile_purchase_payments',
  payload: Type.Object({ _cron: Type.Optional(Type.Unknown()) }),
  schedule: '*/5 * * * *',
  async handler(_payload, _helpers, ctx) {
    const { reconcilePendingPayments } = await import('./purchase-payments.service.ts');
    await reconcilePendingPayments(ctx.db, ctx);
  },
});
