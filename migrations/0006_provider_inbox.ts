import { type Kysely, sql } from 'kysely';

// The inbox of provider events (card and crypto payment webhooks): each event is recorded once,
// keyed by the provider's own event id, whatever the provider re-delivers; processing is marked
// on the row, so a job can retry what failed from the stored payload.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE provider_events (
      id uuid PRIMARY KEY,
      -- The webhook the event came through, as its URL names it (card-provider, crypto-provider).
      provider text NOT NULL,
      event_id text NOT NULL,
      event_type text NOT NULL,
      -- The provider account the event belongs to (the platform's, or an organization's connected
      -- account); null when the provider names none.
      account text,
      -- The body exactly as received: the bytes the signature was verified on.
      payload text NOT NULL,
      received_at timestamptz(3) NOT NULL DEFAULT now(),
      processed_at timestamptz(3),
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      UNIQUE (provider, event_id)
    );
    CREATE INDEX provider_events_unprocessed_idx ON provider_events (received_at, id) WHERE processed_at IS NULL;
  `.execute(db);
}
