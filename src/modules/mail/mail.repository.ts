import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { MailboxMessageRow, MailOutboxRow } from '../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../http/pagination.ts';
import { uuidv7 } from '../../lib/ids.ts';

export interface NewOutboxMail {
  organizationId: string | null;
  templateType: string;
  to: string;
  subject: string;
  html: string;
  text: string;
}

export const SEND_MAIL_TASK = 'send_mail';
export const SEND_MAIL_MAX_ATTEMPTS = 10;

/** Writes the message and its delivery job in the caller's transaction: both or neither. */
export async function insertOutboxMail(db: Executor, mail: NewOutboxMail): Promise<string> {
  const id = uuidv7();
  await db
    .insertInto('mail_outbox')
    .values({
      id,
      organization_id: mail.organizationId,
      template_type: mail.templateType,
      to_address: mail.to,
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
    })
    .execute();
  await sql`SELECT graphile_worker.add_job(
    ${SEND_MAIL_TASK},
    json_build_object('outbox_id', ${id}::text),
    max_attempts := ${SEND_MAIL_MAX_ATTEMPTS},
    job_key := ${`mail:${id}`}
  )`.execute(db);
  return id;
}

export function findOutboxMailForUpdate(db: Executor, id: string): Promise<MailOutboxRow | undefined> {
  return db.selectFrom('mail_outbox').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function markOutboxSent(db: Executor, id: string, transport: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      status: 'SENT',
      transport,
      sent_at: new Date(),
      attempts: eb('attempts', '+', 1),
      last_error: null,
    }))
    .where('id', '=', id)
    .execute();
}

export async function markOutboxAttemptFailed(
  db: Executor,
  id: string,
  error: string,
  final: boolean,
): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      last_error: error,
      status: final ? 'FAILED' : 'PENDING',
    }))
    .where('id', '=', id)
    .execute();
}

export async function insertMailboxMessage(db: Executor, outbox: MailOutboxRow): Promise<void> {
  await db
    .insertInto('mailbox_messages')
    .values({
      id: uuidv7(),
      outbox_id: outbox.id,
      to: outbox.to_address,
      subject: outbox.subject,
      html: outbox.html,
      text: outbox.text,
    })
    .onConflict((oc) => oc.column('outbox_id').doNothing())
    .execute();
}

export function listMailboxMessages(
  db: Executor,
  page: PageParams,
  to: string | undefined,
): Promise<PageResult<MailboxMessageRow>> {
  let query = db.selectFrom('mailbox_messages').selectAll();
  if (to !== undefined) query = query.where(sql`lower(${sql.ref('to')})`, '=', to.toLowerCase());
  return paginate(query, {
    page,
    filters: { to: to?.toLowerCase() },
    sortColumn: 'mailbox_messages.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'mailbox_messages.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}
