import type { Executor } from '../../../db/executor.ts';
import type { WebhookEventType } from '../../../db/schema.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { MAX_ATTEMPTS, queueDelivery } from './webhook-delivery.service.ts';
import * as repo from './webhooks.repository.ts';

export interface NewEvent {
  organizationId: string;
  type: WebhookEventType;
  /** The resource the event is about: deliveries of one resource to one endpoint keep their order. */
  resourceId: string;
  /**
   * The resource as the admin API returns it (the owning module's response mapper), or a function
   * giving it, called only when an endpoint subscribes (a read saved when none does).
   */
  data: unknown;
}

/**
 * A condition for a statement that changes a resource without emitting its event: true when the
 * organization (a column of that statement) has an endpoint the event would go to, so the change
 * is then made where emitEvent can be called with it instead.
 */
export const hasEventSubscriber = repo.hasSubscribedWebhook;

/** Whether an event of `type` about the resource was written (for a subscriber) already. */
export const eventWritten = repo.hasEventOf;

/**
 * Emits an event in the caller's transaction, the one that makes the change it describes (README,
 * "Receive events"): the event row, one delivery per enabled endpoint of the organization subscribed to its
 * type, and their jobs; all commit with the change or not at all. With no subscriber nothing is
 * written. Returns the event's id (the webhook-id of its deliveries), or undefined.
 */
export async function emitEvent(db: Executor, event: NewEvent): Promise<string | undefined> {
  const endpoints = await repo.subscribedWebhooks(db, event.organizationId, event.type);
  if (endpoints.length === 0) return undefined;
  return writeEvent(
    db,
    event,
    endpoints.map((e) => e.id),
  );
}

/**
 * emitEvent for many events in the caller's transaction, the subscribers of each organization
 * and type looked up once.
 */
export async function emitEvents(db: Executor, events: readonly NewEvent[]): Promise<void> {
  const subscribers = new Map<string, string[]>();
  for (const event of events) {
    const key = `${event.organizationId}:${event.type}`;
    let webhookIds = subscribers.get(key);
    if (webhookIds === undefined) {
      webhookIds = (await repo.subscribedWebhooks(db, event.organizationId, event.type)).map((e) => e.id);
      subscribers.set(key, webhookIds);
    }
    if (webhookIds.length > 0) await writeEvent(db, event, webhookIds);
  }
}

/** The event and its deliveries to `webhookIds`, each queued. */
export async function writeEvent(
  db: Executor,
  event: NewEvent,
  webhookIds: readonly string[],
): Promise<string> {
  const id = uuidv7();
  const data = typeof event.data === 'function' ? await event.data() : event.data;
  const payload = JSON.stringify({ type: event.type, timestamp: new Date().toISOString(), data });
  await repo.insertEvent(db, {
    id,
    organizationId: event.organizationId,
    type: event.type,
    resourceId: event.resourceId,
    payload,
  });
  const deliveries = webhookIds.map((webhookId) => ({
    id: uuidv7(),
    webhookId,
    organizationId: event.organizationId,
    eventId: id,
    eventType: event.type,
    resourceId: event.resourceId,
    maxAttempts: MAX_ATTEMPTS,
  }));
  await repo.insertDeliveries(db, deliveries);
  for (const delivery of deliveries)
    await queueDelivery(db, { id: delivery.id, webhook_id: delivery.webhookId });
  return id;
}
