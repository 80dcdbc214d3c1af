import { Type } from '@sinclair/typebox';
import { defineTask, JobUuid } from '../../jobs/task.ts';

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
 * Runs at an intent's expiration: still PENDING, it becomes EXPIRED and its hold ends (a payment
 * provider's session is settled with the provider first; a provider out of reach retries the job).
 */
export const expirePurchaseIntentTask = defineTask({
  name: 'expire_purchase_intent',
  payload: Type.Object({ purchase_intent_id: JobUuid }),
  async handler(payload, _helpers, ctx) {
    const { expireIntentWithProvider } = await import('./purchase-payments.service.ts');
    await expireIntentWithProvider(ctx.db, ctx, payload.purchase_intent_id);
  },
});

/** Every minute: any due PENDING intent a per-intent job missed expires. */
export const expirePurchaseIntentsTask = defineTask({
  name: 'expire_purchase_intents',
  payload: Type.Object({ _cron: Type.Optional(Type.Unknown()) }),
  schedule: '* * * * *',
  async handler(_payload, _helpers, ctx) {
    const { expireDueIntents } = await import('./purchase-payments.service.ts');
    const expired = await expireDueIntents(ctx.db, ctx);
    if (expired > 0) ctx.logger.info({ expired }, 'purchase intents expired');
  },
});

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
