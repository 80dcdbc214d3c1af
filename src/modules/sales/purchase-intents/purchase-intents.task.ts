import { handleJob } from '../../../jobs/job.ts';
import { deliverPurchaseIntent } from './purchase-delivery.service.ts';
import {
  cancelPaymentSessionJob,
  deliverPurchaseIntentJob,
  EXPIRY_SWEEP_MS,
  expirePurchaseIntentJob,
  expirePurchaseIntentsJob,
  reconcilePurchasePaymentsJob,
  scheduleExpirySweep,
} from './purchase-intents.jobs.ts';
import {
  cancelPaymentSession,
  expireDueIntents,
  expireIntentWithProvider,
  reconcilePendingPayments,
} from './purchase-payments.service.ts';

export const deliverPurchaseIntentTask = handleJob(
  deliverPurchaseIntentJob,
  async (payload, _helpers, ctx) => {
    await ctx.db.transaction().execute((tx) => deliverPurchaseIntent(tx, ctx, payload.purchase_intent_id));
  },
);

export const expirePurchaseIntentTask = handleJob(expirePurchaseIntentJob, async (payload, _helpers, ctx) => {
  await expireIntentWithProvider(ctx.db, ctx, payload.purchase_intent_id);
});

export const expirePurchaseIntentsTask = handleJob(
  expirePurchaseIntentsJob,
  async (_payload, _helpers, ctx) => {
    try {
      const expired = await expireDueIntents(ctx.db, ctx);
      if (expired > 0) ctx.logger.info({ expired }, 'purchase intents expired');
    } catch (error) {
      // The next run tries again, rather than graphile-worker's growing backoff.
      ctx.logger.warn({ err: error }, 'the purchase intent expiry sweep failed');
    }
    await scheduleExpirySweep(ctx.db, EXPIRY_SWEEP_MS);
  },
);

export const cancelPaymentSessionTask = handleJob(cancelPaymentSessionJob, async (payload, _helpers, ctx) => {
  await cancelPaymentSession(ctx.db, ctx, payload.purchase_intent_id);
});

export const reconcilePurchasePaymentsTask = handleJob(
  reconcilePurchasePaymentsJob,
  async (_payload, _helpers, ctx) => {
    await reconcilePendingPayments(ctx.db, ctx);
  },
);
