import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { MailTransport, OutgoingMail } from './transport.ts';

export const MAILBOX_TRANSPORT = 'mailbox';

/**
 * The local mailbox (no SMTP_URL): mail is kept in `mailbox_messages`, readable by platform
 * admins at GET /v1/mailbox. One message per outbox row, however many times it is sent.
 */
export function createMailboxTransport(db: Kysely<Database>): MailTransport {
  return {
    name: MAILBOX_TRANSPORT,
    async send(mail: OutgoingMail) {
      await db
        .insertInto('mailbox_messages')
        .values({
          id: uuidv7(),
          outbox_id: mail.id,
          to: mail.to,
          subject: mail.subject,
          html: mail.html,
          text: mail.text,
        })
        .onConflict((oc) => oc.column('outbox_id').doNothing())
        .execute();
    },
    async close() {},
  };
}
