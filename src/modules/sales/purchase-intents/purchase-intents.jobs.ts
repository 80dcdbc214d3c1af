import { Type } from '@sinclair/typebox';
import type { Executor } from '../../../db/executor.ts';
import { enqueue } from '../../../jobs/enqueue.ts';
import { CronPayload, declareJob, JobUuid } from '../../../jobs/job.ts';

/** The intents' background work. */

/** Delivers a confirmed intent (keyed by the intent: queued once, delivered once). */
export const deliverPurchaseIntentJob = declareJob({
  name: 'deliver_purchase_intent',
  payload: Type.Object({ purchase_intent_id: JobUuid }),
});

/**
 * One intent's expiry: still PENDING and due, it becomes EXPIRED and its hold ends (a payment
 * provider's session is settled with the provider first; a provider out of reach retries the job).
 * Intents no longer queue it (the sweep expires them); it runs the jobs already queued.
 */
export const expirePurchaseIntentJob = declareJob({
  name: 'expire_purchase_intent',
  payload: Type.Object({ purchase_intent_id: JobUuid }),
});

/** How long after its expiration a PENDING intent is expired at most, give or take a sweep. */
export const EXPIRY_SWEEP_MS = 2_000;

/**
 * The expiry sweep: every due PENDING intent expires and its hold ends. It queues itself again
 * EXPIRY_SWEEP_MS after each run (one chain, by its job key: a run queued again replaces the one
 * waiting); the worker starts the chain, and the minute's cron run restarts one lost to a crash.
 * An intent queues nothing when it is created: a hold costs no job.
 */
export const expirePurchaseIntentsJob = declareJob({
  name: 'expire_purchase_intents',
  payload: CronPayload,
  schedule: '* * * * *',
});

/** Queues the expiry sweep (replacing the one waiting, if any) `delayMs` from now. */
export async function scheduleExpirySweep(db: Executor, delayMs = 0): Promise<void> {
  await enqueue(
    db,
    expirePurchaseIntentsJob,
    {},
    { jobKey: 'expire_purchase_intents', runAt: new Date(Date.now() + delayMs) },
  );
}

/** Cancels the provider's session of an intent that ended here (keyed by the intent; retried). */
export const cancelPaymentSessionJob = declareJob({
  name: 'cancel_payment_session',
  payload: Type.Object({ purchase_intent_id: JobUuid }),
});

/** Every five minutes: payable intents are asked about at their provider (a missed event). */
export const reconcilePurchasePaymentsJob = declareJob({
  name: 'reconcile_purchase_payments',
  payload: CronPayload,
  schedule: '*/5 * * * *',
});
