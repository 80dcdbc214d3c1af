import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import type { Deps } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type {
  WebhookDeliveryRow,
  WebhookDeliveryStatus,
  WebhookEventType,
  WebhookRow,
} from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { queueDelivery } from './webhook-delivery.service.ts';
import { writeEvent } from './webhook-events.service.ts';
import { generateSecret } from './webhook-signing.ts';
import * as repo from './webhooks.repository.ts';
import type {
  CreateWebhookBody,
  EditWebhookBody,
  Webhook,
  WebhookDelivery,
  WebhookWithSecret,
} from './webhooks.schemas.ts';

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    organization_id: row.organization_id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    disabled_at: iso(row.disabled_at),
    secret_rotated_at: iso(row.secret_rotated_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function toWebhookDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    response_status: row.response_status,
    last_error: row.last_error,
    created_at: iso(row.created_at),
    next_attempt_at: row.status === 'PENDING' ? iso(row.next_attempt_at) : null,
    completed_at: iso(row.completed_at),
  };
}

/** The URL is checked as a delivery would reach it (scheme, credentials, resolved addresses): a 400 otherwise. */
async function checkedUrl(deps: Pick<Deps, 'webhooks'>, url: string): Promise<string> {
  const problem = await deps.webhooks.checkUrl(url);
  if (problem !== undefined)
    throw new ApiError('VALIDATION_FAILED', problem, { fields: [{ path: '/url', message: problem }] });
  return url;
}

export async function createWebhook(
  db: Executor,
  deps: Pick<Deps, 'keyring' | 'webhooks'>,
  principal: Principal,
  body: CreateWebhookBody,
): Promise<WebhookWithSecret> {
  const url = await checkedUrl(deps, body.url);
  // The secret signs every delivery, so it is kept (encrypted), not hashed; shown this once.
  const secret = generateSecret();
  const row = await repo.insertWebhook(db, {
    id: uuidv7(),
    organizationId: principal.organizationId,
    url,
    events: body.events,
    enabled: body.enabled ?? true,
    secretEncrypted: deps.keyring.encrypt(secret),
  });
  return { ...toWebhook(row), secret };
}

/** An endpoint `principal` may see: another organization's is NOT_FOUND. */
export async function getWebhook(db: Executor, principal: Principal, id: string): Promise<WebhookRow> {
  const row = await repo.findWebhook(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'webhook not found');
  assertOrganizationAccess(principal, row.organization_id, 'webhook');
  return row;
}

export function listWebhooks(
  db: Executor,
  principal: Principal,
  page: PageParams,
): Promise<PageResult<WebhookRow>> {
  return repo.listWebhooks(db, isPlatformAdmin(principal) ? undefined : principal.organizationId, page);
}

/** Enabling an endpoint clears why the service disabled it and its run of failures. */
export async function editWebhook(
  db: Executor,
  deps: Pick<Deps, 'webhooks'>,
  principal: Principal,
  id: string,
  body: EditWebhookBody,
): Promise<WebhookRow> {
  const current = await getWebhook(db, principal, id);
  const url = body.url === undefined ? undefined : await checkedUrl(deps, body.url);
  return repo.updateWebhook(db, current.id, {
    ...(url !== undefined && { url }),
    ...(body.events !== undefined && { events: body.events }),
    ...(body.enabled !== undefined && { enabled: body.enabled }),
    ...(body.enabled === true &&
      !current.enabled && { disabled_reason: null, disabled_at: null, failing_since: null }),
  });
}

export async function deleteWebhook(db: Executor, principal: Principal, id: string): Promise<void> {
  const current = await getWebhook(db, principal, id);
  await repo.deleteWebhook(db, current.id);
}

/**
 * A new secret, shown once; for the next 24 h deliveries carry a signature by the previous secret
 * too (Standard Webhooks allows several), so receivers can switch without losing an event.
 */
export async function rotateWebhookSecret(
  db: Tx,
  deps: Pick<Deps, 'keyring'>,
  principal: Principal,
  id: string,
): Promise<WebhookWithSecret> {
  const found = await getWebhook(db, principal, id);
  // Locked, so two rotations at once keep the secret the later one replaced as its previous one.
  const current = (await repo.findWebhookForUpdate(db, found.id)) ?? found;
  const secret = generateSecret();
  const row = await repo.updateWebhook(db, current.id, {
    secret_encrypted: deps.keyring.encrypt(secret),
    previous_secret_encrypted: current.secret_encrypted,
    secret_rotated_at: new Date(),
  });
  return { ...toWebhook(row), secret };
}

/** A `webhook.test` event to this endpoint only (subscribed or not, enabled or not): its delivery. */
export async function sendTestEvent(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<WebhookDeliveryRow> {
  const webhook = await getWebhook(db, principal, id);
  const eventId = await writeEvent(
    db,
    {
      organizationId: webhook.organization_id,
      type: 'webhook.test',
      resourceId: webhook.id,
      data: toWebhook(webhook),
    },
    [webhook.id],
  );
  const [delivery] = await repo.findDeliveriesOfEvent(db, eventId);
  if (!delivery) throw new Error(`test event ${eventId} has no delivery`);
  return delivery;
}

export async function listWebhookDeliveries(
  db: Executor,
  principal: Principal,
  id: string,
  page: PageParams,
  filters: { status?: WebhookDeliveryStatus[] | undefined; event_type?: WebhookEventType[] | undefined },
): Promise<PageResult<WebhookDeliveryRow>> {
  const webhook = await getWebhook(db, principal, id);
  return repo.listDeliveries(db, webhook.id, page, {
    statuses: filters.status,
    eventTypes: filters.event_type,
  });
}

/**
 * Sends a delivery once more, now (with the same webhook-id): a FAILED or SUCCEEDED one gets one
 * more attempt; a PENDING one is made due now. One being sent right now is INVALID_STATE.
 */
export async function retryWebhookDelivery(
  db: Tx,
  principal: Principal,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRow> {
  const webhook = await getWebhook(db, principal, webhookId);
  const delivery = await repo.findDeliveryForUpdate(db, deliveryId);
  if (!delivery || delivery.webhook_id !== webhook.id) throw new ApiError('NOT_FOUND', 'delivery not found');
  if (delivery.status === 'SENDING')
    throw new ApiError('INVALID_STATE', 'the delivery is being sent; retry it once this attempt is recorded');
  const reopened = await repo.reopenDelivery(db, delivery.id, delivery.status !== 'PENDING');
  await queueDelivery(db, reopened);
  return reopened;
}
