import { sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { ProviderEventRow } from '../../../db/schema.ts';

export interface NewProviderEventRow {
  id: string;
  provider: string;
  eventId: string;
  eventType: string;
  account: string | null;
  payload: string;
}

/** Inserts the event unless (provider, event_id) is there already: its id, or undefined. */
export async function insertProviderEventOnce(
  db: Executor,
  row: NewProviderEventRow,
): Promise<string | undefined> {
  const inserted = await db
    .insertInto('provider_events')
    .values({
      id: row.id,
      provider: row.provider,
      event_id: row.eventId,
      event_type: row.eventType,
      account: row.account,
      payload: row.payload,
    })
    .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id;
}

export async function findProviderEventByEventId(
  db: Executor,
  provider: string,
  eventId: string,
): Promise<ProviderEventRow | undefined> {
  return db
    .selectFrom('provider_events')
    .selectAll()
    .where('provider', '=', provider)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
}

export async function findProviderEvent(db: Executor, id: string): Promise<ProviderEventRow | undefined> {
  return db.selectFrom('provider_events').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setProviderEventProcessed(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('provider_events')
    .set({ processed_at: sql`now()`, attempts: sql`attempts + 1`, last_error: null })
    .where('id', '=', id)
    .execute();
}

export async function setProviderEventFailed(db: Executor, id: string, error: string): Promise<void> {
  await db
    .updateTable('provider_events')
    .set({ attempts: sql`attempts + 1`, last_error: error })
    .where('id', '=', id)
    .where('processed_at', 'is', null)
    .execute();
}

/** The event if it is not processed yet, locked (concurrent attempts at one event take turns). */
export function lockUnprocessedProviderEvent(db: Tx, id: string): Promise<ProviderEventRow | undefined> {
  return db
    .selectFrom('provider_events')
    .selectAll()
    .where('id', '=', id)
    .where('processed_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Unprocessed events to try again: received over 30 s ago (the webhook's own attempt is done),
 * under `maxAttempts`, and each tried at most once a minute per attempt made so far (backing off).
 */
export async function retryableProviderEvents(
  db: Executor,
  maxAttempts: number,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('provider_events')
    .select('id')
    .where('processed_at', 'is', null)
    .where('attempts', '<', maxAttempts)
    .where('received_at', '<=', sql<Date>`now() - make_interval(secs => 30 + 60 * least(attempts, 60))`)
    .orderBy('received_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
