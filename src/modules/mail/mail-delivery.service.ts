import type { Deps } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import type { MailOutboxRow } from '../../db/schema.ts';
import { printable } from '../../lib/text.ts';
import {
  claimOutboxMail,
  findOutboxMail,
  markOutboxAttemptFailed,
  markOutboxSent,
} from './mail.repository.ts';

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
  | { readonly ok: false; readonly error: unknown };

export type DeliveryOutcome = 'sent' | Exclude<ClaimResult['kind'], 'claimed'>;

/** The Message-ID of every send of an outbox message, so a receiver can recognise a re-send. */
export function messageIdOf(outboxId: string): string {
  return `<${outboxId}@token-issuance-service>`;
}

/**
 * Delivers one outbox message in three steps, none of which holds a lock or a connection across
 * the transport call: claim (one committed UPDATE), send (no transaction, no pooled client),
 * record (one UPDATE). A failed send is recorded, then thrown, so the job queue retries it with
 * backoff; the last attempt leaves it FAILED.
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
  if (!result.ok) throw result.error;
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

/** Step 2: the transport call, through the organization's transport and sender. */
export async function sendClaimedMail(deps: Deps, mail: MailOutboxRow): Promise<SendResult> {
  try {
    const { transport, from } = await deps.mail.forOrganization(mail.organization_id);
    await transport.send({
      id: mail.id,
      from,
      to: mail.to_address,
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
      messageId: messageIdOf(mail.id),
    });
    return { ok: true, transport: transport.name };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Step 3: SENT with the transport's name, or the error: PENDING to retry, FAILED on the last attempt. */
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
    attempt.number >= attempt.max,
  );
}
