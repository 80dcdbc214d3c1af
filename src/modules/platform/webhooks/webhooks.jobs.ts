import { Type } from '@sinclair/typebox';
import { declareJob, JobUuid } from '../../../jobs/job.ts';

/**
 * One attempt at a webhook delivery; carries only its id and re-reads the row (idempotent).
 * Retries are the delivery's own (its backoff), queued by the attempt that failed;
 * graphile-worker retries only a job that threw (the database was unreachable, or another
 * attempt holds the delivery).
 */
export const deliverWebhookJob = declareJob({
  name: 'deliver_webhook',
  payload: Type.Object({ delivery_id: JobUuid }),
  maxAttempts: 25,
  runner: 'webhooks',
});
