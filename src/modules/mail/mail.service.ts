import type { Executor } from '../../db/database.ts';
import type { PageParams } from '../../http/pagination.ts';
import type { MailTransport } from '../../providers/mail/transport.ts';
import {
  findOutboxMailForUpdate,
  insertMailboxMessage,
  insertOutboxMail,
  listMailboxMessages,
  markOutboxAttemptFailed,
  markOutboxSent,
} from './mail.repository.ts';
import { renderDefaultTemplate, type TemplateType } from './templates.ts';

export interface QueueMailInput {
  organizationId: string | null;
  templateType: TemplateType;
  to: string;
  variables: Record<string, string>;
}

/**
 * Renders a message and puts it in the durable outbox, in the caller's transaction: when the
 * business change commits, the mail is certain to be delivered by the worker, with retries.
 */
export function queueMail(db: Executor, input: QueueMailInput): Promise<string> {
  const rendered = renderDefaultTemplate(input.templateType, input.variables);
  return insertOutboxMail(db, {
    organizationId: input.organizationId,
    templateType: input.templateType,
    to: input.to,
    ...rendered,
  });
}

/** Mail kept by the local mailbox, oldest first; `to` matches regardless of case. */
export function listMailbox(db: Executor, page: PageParams, to: string | undefined) {
  return listMailboxMessages(db, page, to);
}

/** The local mailbox: mail stays readable by platform admins at GET /v1/mailbox. */
export const MAILBOX_TRANSPORT = 'mailbox';

export interface Delivery {
  /** The platform's transport; `undefined` means the local mailbox. */
  transport: MailTransport | undefined;
  from: string;
}

/**
 * Delivers one outbox message. The row is locked for the attempt, so two workers never send it
 * at once; a message already SENT is not sent again when its job is retried.
 */
export async function deliverOutboxMail(
  db: Executor,
  delivery: Delivery,
  outboxId: string,
  attempt: { number: number; max: number },
): Promise<'sent' | 'already_sent' | 'missing'> {
  const outcome = await db.transaction().execute(async (tx) => {
    const mail = await findOutboxMailForUpdate(tx, outboxId);
    if (!mail) return 'missing' as const;
    if (mail.status === 'SENT') return 'already_sent' as const;
    if (delivery.transport === undefined) {
      await insertMailboxMessage(tx, mail);
      await markOutboxSent(tx, mail.id, MAILBOX_TRANSPORT);
      return 'sent' as const;
    }
    try {
      await delivery.transport.send({
        from: delivery.from,
        to: mail.to_address,
        subject: mail.subject,
        html: mail.html,
        text: mail.text,
        messageId: `<${mail.id}@token-issuance-service>`,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Recorded and committed, then thrown so the job queue retries with backoff.
      await markOutboxAttemptFailed(tx, mail.id, message.slice(0, 2000), attempt.number >= attempt.max);
      return { failed: error };
    }
    await markOutboxSent(tx, mail.id, delivery.transport.name);
    return 'sent' as const;
  });
  if (typeof outcome === 'object') throw outcome.failed;
  return outcome;
}
