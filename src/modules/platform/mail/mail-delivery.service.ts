import type { Deps } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { MailOutboxRow } from '../../../db/schema.ts';
import { printable } from '../../../lib/text.ts';
import { resolveSender } from '../../../providers/mail/address.ts';
import { isPermanentMailFailure } from '../../../providers/mail/transport.ts';
import {
  claimOutboxMail,
  findOutboxMail,
  insertOutboxMail,
  markOutboxAttemptFailed,
  markOutboxSent,
  type NewOutboxMail,
} from './mail.repository.ts';
import { recordIntegrationFailure } from './mail.service.ts';

/**
 * How long a delivery owns a message it claimed: longer than any transport call may take (the
 * SMTP transport gives up within two minutes). A claim still SENDING after this is a delivery
 * whose process died; the next attempt takes the message over and sends it again.
 */
export const MAIL_CLAIM_MS = 5 * 60_000;

export type ClaimResult =
  | { readonly kind: 'claimed'; readonly mail: MailOutboxRow }
  /** Sent already, given up (FAILED), claimed by a delivery still running, or no such message. */
  | { readonly kind: 'already_sent' | 'given_up' | 'busy' | 'missing' };

export type SendResult =
  | { readonly ok: true; readonly transport: string }
  | {
      readonly ok: false;
      readonly error: unknown;
      /** The provider refused this message for good: recorded FAILED at once, never retried. */
      readonly permanent: boolean;
      /** The organization's email integration it went through, which records the failure too. */
      readonly integrationId: string | null;
    };

/** `rejected`: the provider refused the message permanently (FAILED, not retried). */
export type DeliveryOutcome = 'sent' | 'rejected' | Exclude<ClaimResult['kind'], 'claimed'>;

/** The Message-ID of every send of an outbox message, so a receiver can recognise a re-send. */
export function messageIdOf(outboxId: string): string {
  return `<${outboxId}@token-issuance-service>`;
}

/**
 * Delivers one outbox message in three steps, none of which holds a lock or a connection across
 * the transport call: claim (one committed UPDATE), send (no transaction, no pooled client),
 * record (one UPDATE). A failed send is recorded, then thrown, so the job queue retries it with
 * backoff; the last attempt leaves it FAILED. A permanent refusal (an API's 4xx, an SMTP 5xx) is
 * FAILED at once and not thrown: retrying could not change the provider's answer.
 */
export async function deliverOutboxMail(
  db: Executor,
  deps: Deps,
  outboxId: string,
  attempt: { number: number; max: number },
): Promise<DeliveryOutcome> {
  const claim = await claimDelivery(db, outboxId);
  if (claim.kind !== 'claimed') return claim.kind;
  const result = await sendClaimedMail(deps, claim.mail);
  await recordDelivery(db, claim.mail, result, attempt);
  if (!result.ok) {
    if (result.permanent) return 'rejected';
    throw result.error;
  }
  return 'sent';
}

/** Step 1: marks the message SENDING until the claim expires and counts the send. */
export async function claimDelivery(
  db: Executor,
  outboxId: string,
  claimMs = MAIL_CLAIM_MS,
): Promise<ClaimResult> {
  const mail = await claimOutboxMail(db, outboxId, claimMs);
  if (mail) return { kind: 'claimed', mail };
  const row = await findOutboxMail(db, outboxId);
  if (!row) return { kind: 'missing' };
  switch (row.status) {
    case 'SENT':
      return { kind: 'already_sent' };
    case 'FAILED':
      return { kind: 'given_up' };
    // PENDING here: another delivery claimed it and failed between our two statements.
    case 'SENDING':
    case 'PENDING':
      return { kind: 'busy' };
    default:
      return row.status satisfies never;
  }
}

/**
 * Step 2: the transport call, through the organization's transport (its active email
 * integration, else the platform's). The sender is the row's own (a campaign's email_from: a
 * full mailbox, or a display name put before the transport's address), else the transport's.
 */
export async function sendClaimedMail(deps: Pick<Deps, 'mail'>, mail: MailOutboxRow): Promise<SendResult> {
  let integrationId: string | null = null;
  try {
    const route = await deps.mail.forOrganization(mail.organization_id);
    integrationId = route.integrationId;
    const { transport } = route;
    await transport.send({
      id: mail.id,
      from: resolveSender(mail.sender, route.from),
      replyTo: route.replyTo,
      to: mail.to_address,
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
      messageId: messageIdOf(mail.id),
    });
    return { ok: true, transport: transport.name };
  } catch (error) {
    return { ok: false, error, permanent: isPermanentMailFailure(error), integrationId };
  }
}

/**
 * Sends one message now, in the caller's request (a test mail: its sender waits for the outcome):
 * recorded in the outbox like any message, claimed, sent and recorded with no retry. No
 * transaction may be open around it.
 */
export async function sendMailNow(db: Executor, deps: Deps, mail: NewOutboxMail): Promise<SendResult> {
  const id = await insertOutboxMail(db, mail);
  const claim = await claimDelivery(db, id);
  if (claim.kind !== 'claimed')
    return {
      ok: false,
      error: new Error(`the message could not be claimed (${claim.kind})`),
      permanent: false,
      integrationId: null,
    };
  const result = await sendClaimedMail(deps, claim.mail);
  await recordDelivery(db, claim.mail, result, { number: 1, max: 1 });
  return result;
}

/**
 * Step 3: SENT with the transport's name, or the error: PENDING to retry, FAILED on the last
 * attempt or a permanent refusal. A failure through an integration is also its `last_error`.
 */
export async function recordDelivery(
  db: Executor,
  mail: MailOutboxRow,
  result: SendResult,
  attempt: { number: number; max: number },
): Promise<void> {
  if (result.ok) {
    await markOutboxSent(db, mail.id, result.transport);
    return;
  }
  const message = printable(result.error instanceof Error ? result.error.message : String(result.error));
  await markOutboxAttemptFailed(
    db,
    mail.id,
    mail.send_count,
    message.slice(0, 2000),
    result.permanent || attempt.number >= attempt.max,
  );
  if (result.integrationId !== null) await recordIntegrationFailure(db, result.integrationId, message);
}
