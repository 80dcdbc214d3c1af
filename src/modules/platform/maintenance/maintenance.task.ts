import { deleteExpiredIdempotencyKeys } from '../../../http/idempotency.ts';
import { deleteExpiredRateLimitBuckets } from '../../../http/rate-limit.ts';
import { handleJob } from '../../../jobs/job.ts';
import { maintainWebhookDeliveries } from '../webhooks/webhook-delivery.service.ts';
import { maintenanceJob } from './maintenance.jobs.ts';

export const maintenanceTask = handleJob(maintenanceJob, async (_payload, _helpers, ctx) => {
  await deleteExpiredIdempotencyKeys(ctx.db);
  await deleteExpiredRateLimitBuckets(ctx.db, 24 * 3600);
  await maintainWebhookDeliveries(ctx.db);
});
