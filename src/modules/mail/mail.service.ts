import type { Executor } from '../../db/database.ts';
import type { PageParams } from '../../http/pagination.ts';
import { enqueue } from '../../jobs/enqueue.ts';
import { insertOutboxMail, listMailboxMessages } from './mail.repository.ts';
import { sendMailTask } from './send-mail.task.ts';
import { renderDefaultTemplate, type TemplateType } from './templates.ts';

export interface QueueMailInput {
  organizationId: string | null;
  templateType: TemplateType;
  to: string;
  variables: Record<string, string>;
}

/**
 * Renders a message and puts it in the durable outbox with its delivery job, in the caller's
 * transaction: when the business change commits, the mail is certain to be delivered by the
 * worker, with retries.
 */
export async function queueMail(db: Executor, input: QueueMailInput): Promise<string> {
  const rendered = renderDefaultTemplate(input.templateType, input.variables);
  const id = await insertOutboxMail(db, {
    organizationId: input.organizationId,
    templateType: input.templateType,
    to: input.to,
    ...rendered,
  });
  await enqueue(db, sendMailTask, { outbox_id: id }, { jobKey: `mail:${id}` });
  return id;
}

/** Mail kept by the local mailbox, oldest first; `to` matches regardless of case. */
export function listMailbox(db: Executor, page: PageParams, to: string | undefined) {
  return listMailboxMessages(db, page, to);
}
