import { Type } from '@sinclair/typebox';
import { defineTask, JobUuid } from '../../../jobs/task.ts';
import { deliverOutboxMail } from './mail-delivery.service.ts';

/** Job: deliver one outbox message; carries only its id and re-reads the row (idempotent). */
export const sendMailTask = defineTask({
  name: 'send_mail',
  payload: Type.Object({ outbox_id: JobUuid }),
  maxAttempts: 10,
  async handler(payload, helpers, ctx) {
    const outcome = await deliverOutboxMail(ctx.db, ctx, payload.outbox_id, {
      number: helpers.job.attempts,
      max: helpers.job.max_attempts,
    });
    // Another delivery holds the message: try again later, when it has finished or its claim expired.
    if (outcome === 'busy')
      throw new Error(`outbox mail ${payload.outbox_id} is being sent by another delivery`);
    ctx.logger.debug({ outboxId: payload.outbox_id, outcome }, 'mail delivery');
  },
});
