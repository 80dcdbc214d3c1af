import { Type } from '@sinclair/typebox';
import { defineTask, JobUuid } from '../../../jobs/task.ts';
import { deliverWebhook, queueDelivery } from './webhook-delivery.service.ts';
import { findDelivery } from './webhooks.repository.ts';

/**
 * Job: one attempt at a webhook delivery; carries only its id and re-reads the row (idempotent).
 * Retries are the delivery's own (its backoff), queued by the attempt that failed;
 * graphile-worker retries only a job that threw (the database was unreachable, or another
 * attempt holds the delivery).
 */
export const deliverWebhookTask = defineTask({
  name: 'deliver_webhook',
  payload: Type.Object({ delivery_id: JobUuid }),
  maxAttempts: 25,
  runner: 'webhooks',
  async handler(payload, _helpers, ctx) {
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
  },
});
