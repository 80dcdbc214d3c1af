import { handleJob } from '../../../jobs/job.ts';
import { deliverWebhook, queueDelivery } from './webhook-delivery.service.ts';
import { deliverWebhookJob } from './webhooks.jobs.ts';
import { findDelivery } from './webhooks.repository.ts';

export const deliverWebhookTask = handleJob(deliverWebhookJob, async (payload, _helpers, ctx) => {
  const outcome = await deliverWebhook(ctx.db, ctx, payload.delivery_id);
  switch (outcome) {
    case 'busy':
      throw new Error(`webhook delivery ${payload.delivery_id} is held by another attempt`);
    case 'not_due': {
      // Run early (a replaced job): come back when it is due.
      const row = await findDelivery(ctx.db, payload.delivery_id);
      if (row?.next_attempt_at) await queueDelivery(ctx.db, row, row.next_attempt_at);
      break;
    }
    default:
      break;
  }
  ctx.logger.debug({ deliveryId: payload.delivery_id, outcome }, 'webhook delivery');
});
