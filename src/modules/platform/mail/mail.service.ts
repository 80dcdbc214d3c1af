import type { Executor } from '../../../db/executor.ts';
import type { EmailTemplateRow } from '../../../db/schema.ts';
import type { PageParams } from '../../../http/pagination.ts';
import { enqueue } from '../../../jobs/enqueue.ts';
import { printable } from '../../../lib/text.ts';
import { findCampaign } from '../marketing-campaigns/marketing-campaigns.service.ts';
import { sendMailJob } from './mail.jobs.ts';
import {
  findTemplateForMail,
  insertOutboxMail,
  listMailboxMessages,
  recordIntegrationError,
  type TemplateScope,
} from './mail.repository.ts';
import {
  defaultTemplate,
  type RenderedMail,
  renderDefaultTemplate,
  renderTemplate,
  type TemplateSource,
  type TemplateType,
} from './templates.ts';

export type { TemplateScope } from './mail.repository.ts';

/**
 * The stored template mail of this type is rendered from: the campaign's version, else the
 * organization's (docs/api.md#templates); undefined: the platform default.
 */
export function storedTemplateForMail(
  db: Executor,
  scope: TemplateScope,
  type: TemplateType,
): Promise<EmailTemplateRow | undefined> {
  return findTemplateForMail(db, scope, type);
}

/**
 * The template mail of this type is rendered from: the campaign's version, else the
 * organization's, else the platform default (docs/api.md#templates).
 */
export async function templateForMail(
  db: Executor,
  scope: TemplateScope,
  type: TemplateType,
): Promise<{ source: TemplateSource; custom: boolean }> {
  const row = await findTemplateForMail(db, scope, type);
  return row
    ? { source: { subject: row.subject, html: row.html }, custom: true }
    : { source: defaultTemplate(type), custom: false };
}

/**
 * A send through an email integration failed: the latest failure and when are kept on it
 * (last_error, last_error_at) and not cleared by later successes, so an admin can see what went
 * wrong and when, and compare it with the mail sent since.
 */
export async function recordIntegrationFailure(db: Executor, id: string, message: string): Promise<void> {
  await recordIntegrationError(db, id, printable(message).slice(0, 2000));
}

export interface RenderMailInput {
  organizationId: string | null;
  /** The campaign the mail belongs to: its templates and its sender. */
  campaignId?: string | null;
  templateType: TemplateType;
  variables: Record<string, string>;
}

export interface QueueMailInput extends RenderMailInput {
  to: string;
}

export interface MailForSending extends RenderedMail {
  /** The campaign whose mail this is (null when it names none, or one that is gone). */
  campaignId: string | null;
  /** The campaign's email_from, the message's sender; null: the transport's. */
  sender: string | null;
  /** Rendered from a custom template (the campaign's or the organization's), not the default. */
  custom: boolean;
}

/**
 * Renders a mail as its organization sends it (docs/api.md#templates): the campaign's template, else the
 * organization's, else the platform default; a campaign of another organization, or one deleted
 * since, counts as none. The text part is derived from the rendered HTML.
 */
export async function renderMail(db: Executor, input: RenderMailInput): Promise<MailForSending> {
  const organizationId = input.organizationId;
  if (organizationId === null) {
    return {
      ...renderDefaultTemplate(input.templateType, input.variables),
      campaignId: null,
      sender: null,
      custom: false,
    };
  }
  const campaign = input.campaignId ? await findCampaign(db, input.campaignId) : undefined;
  const ownCampaign = campaign?.organization_id === organizationId ? campaign : undefined;
  const { source, custom } = await templateForMail(
    db,
    { organizationId, campaignId: ownCampaign?.id ?? null },
    input.templateType,
  );
  let rendered: RenderedMail;
  try {
    rendered = renderTemplate(source, input.variables);
  } catch {
    // Stored templates passed a trial render when written; should one still fail, the mail goes
    // out on the default rather than not at all.
    rendered = renderDefaultTemplate(input.templateType, input.variables);
  }
  return {
    ...rendered,
    campaignId: ownCampaign?.id ?? null,
    sender: ownCampaign?.email_from ?? null,
    custom,
  };
}

/**
 * Renders a message and puts it in the durable outbox with its delivery job, in the caller's
 * transaction: when the business change commits, the mail is certain to be delivered by the
 * worker, with retries.
 */
export async function queueMail(db: Executor, input: QueueMailInput): Promise<string> {
  const mail = await renderMail(db, input);
  const id = await insertOutboxMail(db, {
    organizationId: input.organizationId,
    campaignId: mail.campaignId,
    sender: mail.sender,
    templateType: input.templateType,
    to: input.to,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
  });
  await enqueue(db, sendMailJob, { outbox_id: id }, { jobKey: `mail:${id}` });
  return id;
}

/** Mail kept by the local mailbox, oldest first; `to` matches regardless of case. */
export function listMailbox(db: Executor, page: PageParams, to: string | undefined) {
  return listMailboxMessages(db, page, to);
}
