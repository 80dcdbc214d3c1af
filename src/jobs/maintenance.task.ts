import { Type } from '@sinclair/typebox';
import { deleteExpiredIdempotencyKeys } from '../http/idempotency.ts';
import { deleteExpiredRateLimitBuckets } from '../http/rate-limit.ts';
import { maintainWebhookDeliveries } from '../modules/platform/webhooks/webhook-delivery.service.ts';
import { defineTask } from './task.ts';

/**
 * Hourly clean-up of expired idempotency records and rate-limit windows; the webhook delivery log
 * past 30 days, and webhook deliveries whose job was lost queued again.
 */
export const maintenanceTask = defineTask({
  name: 'maintenance',
  // graphile-worker's cron adds `_cron: { ts, backfilled }`; nothing else is expected.
  payload: Type.Object({ _cron: Type.Optional(Type.Unknown()) }),
  schedule: '0 * * * *',
  async handler(_payload, _helpers, ctx) {
    await deleteExpiredIdempotencyKeys(ctx.db);
    await deleteExpiredRateLimitBuckets(ctx.db, 24 * 3600);
    await maintainWebhookDeliveries(ctx.db);
  },
});
