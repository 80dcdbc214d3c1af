import { type RawBuilder, sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import type {
  WebhookDeliveryRow,
  WebhookDeliveryStatus,
  WebhookEventRow,
  WebhookEventType,
  WebhookRow,
} from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export interface NewWebhook {
  id: string;
  organizationId: string;
  url: string;
  events: WebhookEventType[];
  enabled: boolean;
  secretEncrypted: string;
}

export function insertWebhook(db: Executor, webhook: NewWebhook): Promise<WebhookRow> {
  return db
    .insertInto('webhooks')
    .values({
      id: webhook.id,
      organization_id: webhook.organizationId,
      url: webhook.url,
      events: webhook.events,
      enabled: webhook.enabled,
      secret_encrypted: webhook.secretEncrypted,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findWebhook(db: Executor, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findWebhookForUpdate(db: Tx, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function updateWebhook(
  db: Executor,
  id: string,
  patch: Partial<{
    url: string;
    events: WebhookEventType[];
    enabled: boolean;
    secret_encrypted: string;
    previous_secret_encrypted: string | null;
    secret_rotated_at: Date | null;
    failing_since: Date | null;
    disabled_reason: string | null;
    disabled_at: Date | null;
  }>,
): Promise<WebhookRow> {
  return db
    .updateTable('webhooks')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteWebhook(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

export function listWebhooks(
  db: Executor,
  organizationId: string | undefined,
  page: PageParams,
): Promise<PageResult<WebhookRow>> {
  let query = db.selectFrom('webhooks').selectAll();
  if (organizationId !== undefined) query = query.where('organization_id', '=', organizationId);
  return paginate(query, {
    page,
    filters: { organizationId },
    sortColumn: 'webhooks.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'webhooks.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}

/**
 * Whether the organization (a column of the statement it is used in) has an enabled endpoint
 * subscribed to `type`, as a condition of that statement.
 */
export function hasSubscribedWebhook(
  organizationId: RawBuilder<string>,
  type: WebhookEventType,
): RawBuilder<boolean> {
  return sql<boolean>`EXISTS (SELECT 1 FROM webhooks AS w
    WHERE w.organization_id = ${organizationId} AND w.enabled AND ${type} = ANY (w.events))`;
}

/** The organization's enabled endpoints subscribed to `type`, in id order. */
export function subscribedWebhooks(
  db: Executor,
  organizationId: string,
  type: WebhookEventType,
): Promise<Pick<WebhookRow, 'id'>[]> {
  return db
    .selectFrom('webhooks')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('enabled', '=', true)
    .where(sql<boolean>`${type} = ANY (events)`)
    .orderBy('id')
    .execute();
}

export async function insertEvent(
  db: Executor,
  event: { id: string; organizationId: string; type: WebhookEventType; resourceId: string; payload: string },
): Promise<void> {
  await db
    .insertInto('webhook_events')
    .values({
      id: event.id,
      organization_id: event.organizationId,
      type: event.type,
      resource_id: event.resourceId,
      payload: event.payload,
    })
    .execute();
}

export function findEvent(db: Executor, id: string): Promise<WebhookEventRow | undefined> {
  return db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Whether an event of `type` about the resource was written already. */
export async function hasEventOf(db: Executor, type: WebhookEventType, resourceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_events')
    .select('id')
    .where('type', '=', type)
    .where('resource_id', '=', resourceId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface NewDelivery {
  id: string;
  webhookId: string;
  organizationId: string;
  eventId: string;
  eventType: WebhookEventType;
  resourceId: string;
  maxAttempts: number;
}

export async function insertDeliveries(db: Executor, rows: readonly NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(
      rows.map((r) => ({
        id: r.id,
        webhook_id: r.webhookId,
        organization_id: r.organizationId,
        event_id: r.eventId,
        event_type: r.eventType,
        resource_id: r.resourceId,
        max_attempts: r.maxAttempts,
        next_attempt_at: new Date(),
      })),
    )
    .execute();
}

export function findDelivery(db: Executor, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findDeliveriesOfEvent(db: Executor, eventId: string): Promise<WebhookDeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy('id')
    .execute();
}

export function findDeliveryForUpdate(db: Tx, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function listDeliveries(
  db: Executor,
  webhookId: string,
  page: PageParams,
  filters: { statuses: WebhookDeliveryStatus[] | undefined; eventTypes: WebhookEventType[] | undefined },
): Promise<PageResult<WebhookDeliveryRow>> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
  if (filters.statuses !== undefined) query = query.where('status', 'in', filters.statuses);
  if (filters.eventTypes !== undefined) query = query.where('event_type', 'in', filters.eventTypes);
  return paginate(query, {
    page,
    filters: { webhookId, ...filters },
    sortColumn: 'webhook_deliveries.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'webhook_deliveries.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}

/**
 * Claims a delivery for one attempt, in one statement committed before the endpoint is called:
 * a PENDING one that is due, or a SENDING one whose claim expired (its sender died before
 * recording: this attempt may deliver it a second time, `resent`). Never while an earlier
 * delivery of the same resource to the same endpoint is still open (order per resource).
 */
export function claimDelivery(
  db: Executor,
  id: string,
  claimMs: number,
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .updateTable('webhook_deliveries as d')
    .set((eb) => ({
      status: 'SENDING',
      claimed_until: sql<Date>`now() + ${claimMs} * interval '1 millisecond'`,
      send_count: eb('d.send_count', '+', 1),
      // Right-hand sides read the row as it was before this update.
      resent: sql<boolean>`d.resent OR d.status = 'SENDING'`,
      updated_at: new Date(),
    }))
    .where('d.id', '=', id)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('d.status', '=', 'PENDING'),
          eb.or([eb('d.next_attempt_at', 'is', null), eb('d.next_attempt_at', '<=', sql<Date>`now()`)]),
        ]),
        eb.and([eb('d.status', '=', 'SENDING'), eb('d.claimed_until', '<=', sql<Date>`now()`)]),
      ]),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as earlier')
            .select('earlier.id')
            .whereRef('earlier.webhook_id', '=', 'd.webhook_id')
            .whereRef('earlier.resource_id', '=', 'd.resource_id')
            .whereRef('earlier.sequence', '<', 'd.sequence')
            .where('earlier.status', 'in', ['PENDING', 'SENDING']),
        ),
      ),
    )
    .returningAll()
    .executeTakeFirst() as Promise<WebhookDeliveryRow | undefined>;
}

/** The first open delivery of the resource to the endpoint, after `sequence`: the one to wake. */
export function nextOpenDelivery(
  db: Executor,
  delivery: Pick<WebhookDeliveryRow, 'webhook_id' | 'resource_id' | 'sequence'>,
): Promise<Pick<WebhookDeliveryRow, 'id' | 'webhook_id' | 'next_attempt_at'> | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'webhook_id', 'next_attempt_at'])
    .where('webhook_id', '=', delivery.webhook_id)
    .where('resource_id', '=', delivery.resource_id)
    .where('sequence', '>', delivery.sequence)
    .where('status', 'in', ['PENDING', 'SENDING'])
    .orderBy('sequence')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Records an attempt's outcome, only by the claim that made it (`sendCount` fences it), so a late
 * answer cannot overwrite the outcome of a newer attempt. Undefined when the claim was lost.
 */
export function recordAttempt(
  db: Executor,
  id: string,
  sendCount: number,
  outcome: {
    status: 'SUCCEEDED' | 'PENDING' | 'FAILED';
    responseStatus: number | null;
    error: string | null;
    nextAttemptAt: Date | null;
  },
): Promise<WebhookDeliveryRow | undefined> {
  const done = outcome.status !== 'PENDING';
  return db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: outcome.status,
      attempts: eb('attempts', '+', 1),
      response_status: outcome.responseStatus,
      last_error: outcome.error,
      next_attempt_at: outcome.nextAttemptAt,
      claimed_until: null,
      completed_at: done ? new Date() : null,
      updated_at: new Date(),
    }))
    .where('id', '=', id)
    .where('status', '=', 'SENDING')
    .where('send_count', '=', sendCount)
    .returningAll()
    .executeTakeFirst();
}

/** A delivery of a disabled or deleted endpoint ends without an attempt. */
export async function abandonDelivery(db: Executor, id: string, sendCount: number, error: string) {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'FAILED',
      last_error: error,
      claimed_until: null,
      completed_at: new Date(),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .where('status', '=', 'SENDING')
    .where('send_count', '=', sendCount)
    .execute();
}

/** A manual retry: due now; an ended delivery gets one more attempt. */
export function reopenDelivery(db: Executor, id: string, ended: boolean): Promise<WebhookDeliveryRow> {
  return db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: 'PENDING',
      max_attempts: ended ? eb('attempts', '+', 1) : eb.ref('max_attempts'),
      next_attempt_at: new Date(),
      completed_at: null,
      updated_at: new Date(),
    }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deliveries that should have been attempted a while ago (their job was lost with its worker). */
export function overdueDeliveries(
  db: Executor,
  olderThanMs: number,
  limit: number,
): Promise<Pick<WebhookDeliveryRow, 'id' | 'webhook_id'>[]> {
  const before = sql<Date>`now() - ${olderThanMs} * interval '1 millisecond'`;
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'webhook_id'])
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'PENDING'), eb('next_attempt_at', '<', before)]),
        eb.and([eb('status', '=', 'SENDING'), eb('claimed_until', '<', before)]),
      ]),
    )
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** The delivery log keeps `days`; events go with their last delivery. */
export async function deleteOldDeliveries(db: Executor, days: number): Promise<void> {
  const before = sql<Date>`now() - ${days} * interval '1 day'`;
  await db.deleteFrom('webhook_deliveries').where('created_at', '<', before).execute();
  await db
    .deleteFrom('webhook_events as e')
    .where('e.created_at', '<', before)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id'))),
    )
    .execute();
}

/** A success ends the endpoint's run of failures. */
export async function recordEndpointSuccess(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ failing_since: null })
    .where('id', '=', id)
    .where('failing_since', 'is not', null)
    .execute();
}

/**
 * A failure starts (or continues) the endpoint's run of failures; one `disableAfterMs` into it the
 * endpoint is disabled with `reason`. True when this failure disabled it.
 */
export async function recordEndpointFailure(
  db: Executor,
  id: string,
  reason: string,
  disableAfterMs: number,
): Promise<boolean> {
  const result = await sql<{ disabled: boolean }>`
    UPDATE webhooks SET
      failing_since = coalesce(failing_since, now()),
      enabled = enabled AND NOT expired,
      disabled_at = CASE WHEN enabled AND expired THEN now() ELSE disabled_at END,
      disabled_reason = CASE WHEN enabled AND expired THEN ${reason} ELSE disabled_reason END,
      updated_at = CASE WHEN enabled AND expired THEN now() ELSE updated_at END
    FROM (SELECT coalesce(failing_since, now()) <= now() - ${disableAfterMs} * interval '1 millisecond' AS expired
            FROM webhooks WHERE id = ${id}) AS run
    WHERE id = ${id}
    RETURNING (enabled = false AND run.expired) AS disabled`.execute(db);
  return result.rows[0]?.disabled ?? false;
}
