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

/** Runs at an intent's expiration: still PENDING, it becomes EXPIRED and its hold ends. */
export const expirePurchaseIntentTask = defineTask({
  name: 'expire_purchase_intent',
  payload: Type.Object({ purchase_intent_id: JobUuid }),
  async handler(payload, _helpers, ctx) {
    const { expirePurchaseIntent } = await import('./purchase-intents.service.ts');
    await ctx.db.transaction().execute((tx) => expirePurchaseIntent(tx, payload.purchase_intent_id));
  },
});

/** Every minute: any due PENDING intent a per-intent job missed expires. */
export const expirePurchaseIntentsTask = defineTask({
  name: 'expire_purchase_intents',
  payload: Type.Object({ _cron: Type.Optional(Type.Unknown()) }),
  schedule: '* * * * *',
  async handler(_payload, _helpers, ctx) {
    const { expireDuePurchaseIntents } = await import('./purchase-intents.service.ts');
    const expired = await ctx.db.transaction().execute((tx) => expireDuePurchaseIntents(tx));
    if (expired > 0) ctx.logger.info({ expired }, 'purchase intents expired');
  },
});
