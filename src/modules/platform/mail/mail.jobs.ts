import { Type } from '@sinclair/typebox';
import { declareJob, JobUuid } from '../../../jobs/job.ts';

/** Delivers one outbox message; carries only its id and re-reads the row (idempotent). */
export const sendMailJob = declareJob({
  name: 'send_mail',
  payload: Type.Object({ outbox_id: JobUuid }),
  maxAttempts: 10,
});
