import { handleJob } from '../../../jobs/job.ts';
import { sendMailJob } from './mail.jobs.ts';
import { deliverOutboxMail } from './mail-delivery.service.ts';

export const sendMailTask = handleJob(sendMailJob, async (payload, helpers, ctx) => {
  const outcome = await deliverOutboxMail(ctx.db, ctx, payload.outbox_id, {
    number: helpers.job.attempts,
    max: helpers.job.max_attempts,
  });
  // Another delivery holds the message: try again later, when it has finished or its claim expired.
  if (outcome === 'busy')
    throw new Error(`outbox mail ${payload.outbox_id} is being sent by another delivery`);
  ctx.logger.debug({ outboxId: payload.outbox_id, outcome }, 'mail delivery');
});
