import { sql } from 'kysely';
import type { Executor } from '../../../db/executor.ts';
import type { EmailTemplateRow, MailboxMessageRow, MailOutboxRow, TemplateType } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';
import { uuidv7 } from '../../../lib/ids.ts';

export interface NewOutboxMail {
  organizationId: string | null;
  /** The campaign the mail belongs to, and its email_from at the time (the sender). */
  campaignId?: string | null;
  sender?: string | null;
  templateType: string;
  to: string;
  subject: string;
  html: string;
  text: string;
}

/** Writes the message; its delivery job is queued by the caller in the same transaction. */
export async function insertOutboxMail(db: Executor, mail: NewOutboxMail): Promise<string> {
  const id = uuidv7();
  await db
    .insertInto('mail_outbox')
    .values({
      id,
      organization_id: mail.organizationId,
      campaign_id: mail.campaignId ?? null,
      sender: mail.sender ?? null,
      template_type: mail.templateType,
      to_address: mail.to,
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
    })
    .execute();
  return id;
}

export function findOutboxMail(db: Executor, id: string): Promise<MailOutboxRow | undefined> {
  return db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Claims a message for one delivery: PENDING, or SENDING under a claim that expired (its sender
 * died before recording the outcome, so this send may be a second one: `resent`). One statement,
 * committed before the transport is called; undefined when the message is not claimable.
 */
export function claimOutboxMail(
  db: Executor,
  id: string,
  claimMs: number,
): Promise<MailOutboxRow | undefined> {
  return db
    .updateTable('mail_outbox')
    .set((eb) => ({
      status: 'SENDING',
      claimed_until: sql<Date>`now() + ${claimMs} * interval '1 millisecond'`,
      send_count: eb('send_count', '+', 1),
      // Right-hand sides read the row as it was before this update.
      resent: sql<boolean>`resent OR status = 'SENDING'`,
    }))
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'PENDING'),
        eb.and([eb('status', '=', 'SENDING'), eb('claimed_until', '<=', sql<Date>`now()`)]),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
}

/** A send that succeeded is a fact, recorded whichever claim it was made under. */
export async function markOutboxSent(db: Executor, id: string, transport: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      status: 'SENT',
      transport,
      sent_at: new Date(),
      claimed_until: null,
      attempts: eb('attempts', '+', 1),
      last_error: null,
    }))
    .where('id', '=', id)
    .where('status', '<>', 'SENT')
    .execute();
}

/**
 * A failed send is recorded only by the claim that made it (`sendCount` fences it), so a late
 * failure cannot overwrite the outcome of a newer delivery.
 */
export async function markOutboxAttemptFailed(
  db: Executor,
  id: string,
  sendCount: number,
  error: string,
  final: boolean,
): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      last_error: error,
      status: final ? 'FAILED' : 'PENDING',
      claimed_until: null,
    }))
    .where('id', '=', id)
    .where('status', '=', 'SENDING')
    .where('send_count', '=', sendCount)
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

/** Whose templates: an organization's own (campaignId null), or one of its campaigns'. */
export interface TemplateScope {
  organizationId: string;
  /** null: the organization's own version. */
  campaignId: string | null;
}

/** The campaign's version, else the organization's: the fallback order of docs/api.md#templates. */
export function findTemplateForMail(
  db: Executor,
  scope: TemplateScope,
  type: TemplateType,
): Promise<EmailTemplateRow | undefined> {
  let query = db
    .selectFrom('email_templates')
    .selectAll()
    .where('organization_id', '=', scope.organizationId)
    .where('template_type', '=', type);
  const campaignId = scope.campaignId;
  query =
    campaignId === null
      ? query.where('campaign_id', 'is', null)
      : query.where((eb) => eb.or([eb('campaign_id', 'is', null), eb('campaign_id', '=', campaignId)]));
  return query.orderBy(sql`campaign_id IS NULL`).limit(1).executeTakeFirst();
}

/**
 * A send through an email integration failed: the latest failure and when are kept on it, not
 * cleared by later successes.
 */
export async function recordIntegrationError(db: Executor, id: string, error: string): Promise<void> {
  await db
    .updateTable('email_integrations')
    .set({ last_error: error, last_error_at: sql<Date>`now()` })
    .where('id', '=', id)
    .execute();
}
