import type { Kysely } from 'kysely';
import type { Deps, ProviderWebhook } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { Database, ProviderEventRow } from '../../../db/schema.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { printable } from '../../../lib/text.ts';
import {
  findProviderEvent,
  findProviderEventByEventId,
  insertProviderEventOnce,
  lockUnprocessedProviderEvent,
  retryableProviderEvents,
  setProviderEventFailed,
  setProviderEventProcessed,
} from './provider-events.repository.ts';

/**
 * The inbox of provider webhooks. A webhook handler:
 * 1. verifies the provider's signature on the raw body (`rawBodyOf`, http/webhooks-scope.ts);
 * 2. records the event here: a duplicate (a re-delivery) answers 200 at once, nothing else;
 * 3. processes it, then `markProcessed`, in the same database transaction as the recording (a
 *    failure rolls both back and the provider re-delivers), or in a job that retries from the
 *    stored payload, calling `markFailed` on each failed attempt.
 */
export interface ProviderEvent {
  /** The webhook the event came through, as its URL names it: `card-provider`, `crypto-provider`. */
  provider: string;
  /** The provider's id of the event, the same on every re-delivery. */
  eventId: string;
  eventType: string;
  /** The provider account the event belongs to (platform or an organization's); null if none. */
  account: string | null;
  /** The body as received (UTF-8). */
  payload: string;
}

const MAX_ERROR_LENGTH = 2000;

/**
 * Records the event once per (provider, event id). Concurrent deliveries of one event wait on
 * each other at the unique key: exactly one is not a duplicate (unless its transaction rolls
 * back, and then the next one records it).
 */
export async function recordProviderEvent(
  db: Executor,
  event: ProviderEvent,
): Promise<{ id: string; duplicate: boolean }> {
  // PostgreSQL text cannot hold U+0000; a provider event never carries one outside a JSON escape.
  if (event.payload.includes('\u0000'))
    throw new ApiError('VALIDATION_FAILED', 'the event payload must not contain U+0000');
  const id = await insertProviderEventOnce(db, { id: uuidv7(), ...event });
  if (id !== undefined) return { id, duplicate: false };
  const existing = await findProviderEventByEventId(db, event.provider, event.eventId);
  if (!existing)
    throw new Error(`provider event ${event.provider}/${event.eventId} is neither new nor stored`);
  return { id: existing.id, duplicate: true };
}

/** The recorded event, or NOT_FOUND. */
export async function getProviderEvent(db: Executor, id: string): Promise<ProviderEventRow> {
  const row = await findProviderEvent(db, id);
  if (!row) throw new ApiError('NOT_FOUND', `provider event ${id} not found`);
  return row;
}

/** The event is handled: counted as an attempt, its last error cleared. */
export async function markProcessed(db: Executor, id: string): Promise<void> {
  await setProviderEventProcessed(db, id);
}

/** A failed attempt at an unprocessed event: counted, with the error kept (printable, bounded). */
export async function markFailed(db: Executor, id: string, error: unknown): Promise<void> {
  const message = printable(error instanceof Error ? error.message : String(error)).slice(
    0,
    MAX_ERROR_LENGTH,
  );
  await setProviderEventFailed(db, id, message);
}

/** Attempts after which a failing event is left for an operator (its last_error says why). */
export const MAX_PROVIDER_EVENT_ATTEMPTS = 25;

/**
 * A verified event in: recorded once, then processed with its provider's processor. A failure
 * is kept on the row and retried by the retry job, so the answer to the provider is the same
 * (received) and nothing is lost when processing fails; a re-delivery of an event not processed
 * yet is another attempt.
 */
export async function receiveProviderEvent(
  db: Kysely<Database>,
  deps: Deps,
  event: ProviderEvent,
): Promise<{ id: string; duplicate: boolean }> {
  const recorded = await recordProviderEvent(db, event);
  await processProviderEvent(db, deps, recorded.id);
  return recorded;
}

/** One attempt at a recorded event: processed and marked in one transaction, or marked failed. */
export async function processProviderEvent(db: Kysely<Database>, deps: Deps, id: string): Promise<boolean> {
  try {
    return await db.transaction().execute(async (tx) => {
      const row = await lockUnprocessedProviderEvent(tx, id);
      if (!row) return false;
      const processor = deps.ports.providerEvents[row.provider as ProviderWebhook];
      if (!processor) throw new Error(`no processor for ${row.provider} events`);
      await processor(tx, deps, row);
      await markProcessed(tx, id);
      return true;
    });
  } catch (error) {
    deps.logger.error(
      { err: error, providerEventId: id },
      'a provider event failed to process; it will be retried',
    );
    await markFailed(db, id, error);
    return false;
  }
}

/** The retry job: unprocessed events received a while ago, oldest first, one attempt each. */
export async function retryProviderEvents(db: Kysely<Database>, deps: Deps, batch = 100): Promise<number> {
  const ids = await retryableProviderEvents(db, MAX_PROVIDER_EVENT_ATTEMPTS, batch);
  let processed = 0;
  for (const id of ids) if (await processProviderEvent(db, deps, id)) processed++;
  return processed;
}
