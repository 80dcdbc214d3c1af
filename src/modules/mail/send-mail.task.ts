import type { Task } from 'graphile-worker';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/schema.ts';
import { type Delivery, deliverOutboxMail } from './mail.service.ts';

/** Job: deliver one outbox message; carries only its id and re-reads the row (idempotent). */
export function sendMailTask(db: Kysely<Database>, delivery: Delivery, logger: Logger): Task {
  return async (payload, helpers) => {
    const outboxId = (payload as { outbox_id?: unknown }).outbox_id;
    if (typeof outboxId !== 'string') {
      logger.error({ payload }, 'send_mail job without an outbox id');
      return;
    }
    const result = await deliverOutboxMail(db, delivery, outboxId, {
      number: helpers.job.attempts,
      max: helpers.job.max_attempts,
    });
    logger.debug({ outboxId, result }, 'mail delivery');
  };
}
