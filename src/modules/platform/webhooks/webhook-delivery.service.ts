import type { Kysely } from 'kysely';
import type { Deps } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { Database, WebhookDeliveryRow, WebhookRow } from '../../../db/schema.ts';
import { enqueue } from '../../../jobs/enqueue.ts';
import { printable } from '../../../lib/text.ts';
import { WEBHOOK_TIMEOUT_MS, type WebhookResponse } from '../../../providers/webhooks/sender.ts';
import { signedHeaders } from './webhook-signing.ts';
import { deliverWebhookJob } from './webhooks.jobs.ts';
import * as repo from './webhooks.repository.ts';

/** Waits after failed attempts 1, 2…: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h. */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000] as const;
/** The first attempt and one after each wait; the last failure is final (FAILED). */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/**
 * How long an attempt owns the delivery it claimed: well past the endpoint's timeout. A claim
 * still SENDING after this is an attempt whose process died; the next one sends again, with the
 * same webhook-id, so the receiver can tell.
 */
export const DELIVERY_CLAIM_MS = WEBHOOK_TIMEOUT_MS + 50_000;
/** After a rotation, the previous secret signs too for this long. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
/** An endpoint failing without a success for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;

export type DeliveryOutcome =
  /** An attempt was made: the endpoint took it, or it failed and waits for the next, or for good. */
  | 'succeeded'
  | 'retrying'
  | 'failed'
  /** Ended without an attempt: its endpoint is disabled. */
  | 'abandoned'
  /** The attempt's claim was taken over before its outcome was recorded (a newer attempt decides). */
  | 'lost'
  /** Not claimable: ended already, gone, not due yet, claimed by a running attempt, or behind an earlier delivery of its resource. */
  | 'done'
  | 'missing'
  | 'not_due'
  | 'busy'
  | 'blocked';

export interface DeliveryOptions {
  claimMs?: number;
  retryDelaysMs?: readonly number[];
}

/** Queues the job that attempts a delivery; one queue per endpoint, so one endpoint holds at most one worker slot. */
export function queueDelivery(
  db: Executor,
  delivery: Pick<WebhookDeliveryRow, 'id' | 'webhook_id'>,
  runAt?: Date,
): Promise<void> {
  return enqueue(
    db,
    deliverWebhookJob,
    { delivery_id: delivery.id },
    {
      jobKey: `webhook:${delivery.id}`,
      queueName: `webhook:${delivery.webhook_id}`,
      ...(runAt && { runAt }),
    },
  );
}

/**
 * One attempt at a delivery, in three steps, none holding a lock or a connection across the
 * call: claim (one committed UPDATE), POST (no transaction, no pooled client), record (one short
 * transaction: the outcome fenced by the claim's send_count, the endpoint's health, and the next
 * job: this delivery's retry, or the next delivery of the same resource once this one ended).
 */
export async function deliverWebhook(
  db: Kysely<Database>,
  deps: Pick<Deps, 'keyring' | 'webhooks'>,
  deliveryId: string,
  options: DeliveryOptions = {},
): Promise<DeliveryOutcome> {
  const claimed = await repo.claimDelivery(db, deliveryId, options.claimMs ?? DELIVERY_CLAIM_MS);
  if (!claimed) return whyNotClaimed(db, deliveryId);
  const webhook = await repo.findWebhook(db, claimed.webhook_id);
  const event = await repo.findEvent(db, claimed.event_id);
  // A test event goes to a disabled endpoint too: it is how an organization checks a fix.
  if (!webhook || !event || (!webhook.enabled && claimed.event_type !== 'webhook.test')) {
    await db.transaction().execute(async (tx) => {
      await repo.abandonDelivery(tx, claimed.id, claimed.send_count, 'the endpoint is disabled');
      await wakeNext(tx, claimed);
    });
    return 'abandoned';
  }
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await deps.webhooks.post({
    url: webhook.url,
    headers: signedHeaders(signingSecrets(deps, webhook), event.id, timestamp, event.payload),
    body: event.payload,
  });
  return recordOutcome(db, claimed, response, options.retryDelaysMs ?? RETRY_DELAYS_MS);
}

/** The secrets that sign now: the current one, and the previous one within a day of a rotation. */
export function signingSecrets(deps: Pick<Deps, 'keyring'>, webhook: WebhookRow, now = Date.now()): string[] {
  const secrets = [deps.keyring.decrypt(webhook.secret_encrypted)];
  if (
    webhook.previous_secret_encrypted !== null &&
    webhook.secret_rotated_at !== null &&
    now - webhook.secret_rotated_at.getTime() < ROTATION_OVERLAP_MS
  )
    secrets.push(deps.keyring.decrypt(webhook.previous_secret_encrypted));
  return secrets;
}

async function recordOutcome(
  db: Kysely<Database>,
  claimed: WebhookDeliveryRow,
  response: WebhookResponse,
  retryDelaysMs: readonly number[],
): Promise<DeliveryOutcome> {
  const attempt = claimed.attempts + 1;
  const error = response.ok ? null : printable(response.error).slice(0, 1000);
  const status = response.ok ? 'SUCCEEDED' : attempt >= claimed.max_attempts ? 'FAILED' : 'PENDING';
  const delay = retryDelaysMs[Math.min(claimed.attempts, retryDelaysMs.length - 1)] ?? 0;
  const nextAttemptAt = status === 'PENDING' ? new Date(Date.now() + delay) : null;
  return db.transaction().execute(async (tx) => {
    const recorded = await repo.recordAttempt(tx, claimed.id, claimed.send_count, {
      status,
      responseStatus: response.status,
      error,
      nextAttemptAt,
    });
    if (!recorded) return 'lost';
    if (response.ok) await repo.recordEndpointSuccess(tx, claimed.webhook_id);
    else
      await repo.recordEndpointFailure(
        tx,
        claimed.webhook_id,
        `failing for ${DISABLE_AFTER_MS / 86_400_000} days; last error: ${error}`,
        DISABLE_AFTER_MS,
      );
    if (status === 'PENDING') {
      await queueDelivery(tx, recorded, nextAttemptAt ?? undefined);
      return 'retrying';
    }
    await wakeNext(tx, recorded);
    return status === 'SUCCEEDED' ? 'succeeded' : 'failed';
  });
}

/** A delivery ended: the next one of its resource to its endpoint may go now. */
async function wakeNext(
  db: Executor,
  ended: Pick<WebhookDeliveryRow, 'webhook_id' | 'resource_id' | 'sequence'>,
): Promise<void> {
  const next = await repo.nextOpenDelivery(db, ended);
  if (!next) return;
  const due =
    next.next_attempt_at !== null && next.next_attempt_at.getTime() > Date.now()
      ? next.next_attempt_at
      : undefined;
  await queueDelivery(db, next, due);
}

async function whyNotClaimed(db: Executor, id: string): Promise<DeliveryOutcome> {
  const row = await repo.findDelivery(db, id);
  if (!row) return 'missing';
  switch (row.status) {
    case 'SUCCEEDED':
    case 'FAILED':
      return 'done';
    case 'SENDING':
      return 'busy';
    case 'PENDING':
      return row.next_attempt_at !== null && row.next_attempt_at.getTime() > Date.now()
        ? 'not_due'
        : 'blocked';
    default:
      return row.status satisfies never;
  }
}

/** The delivery log keeps 30 days. */
export const DELIVERY_LOG_DAYS = 30;

/**
 * Maintenance: the log past 30 days is deleted, and deliveries overdue by a while (their job was
 * lost with a worker that died holding it) are queued again; their claim, if any, has expired,
 * so the next attempt takes them over.
 */
export async function maintainWebhookDeliveries(db: Kysely<Database>): Promise<void> {
  await repo.deleteOldDeliveries(db, DELIVERY_LOG_DAYS);
  const overdue = await repo.overdueDeliveries(db, 15 * 60_000, 1000);
  for (const delivery of overdue) await queueDelivery(db, delivery);
}
