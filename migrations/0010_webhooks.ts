import { type Kysely, sql } from 'kysely';

// Webhooks: an organization's endpoints, the events its changes emit (written
// in the transaction of the change) and one delivery per event and subscribed endpoint, sent by
// a job that claims the row, calls the endpoint with no transaction open, then records.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- secret_encrypted signs deliveries (so it is encrypted, not hashed); for 24 h after a
    -- rotation previous_secret_encrypted signs too. failing_since: the first failure of the
    -- current run of failures (null after a success); 5 days of it disables the endpoint.
    CREATE TABLE webhooks (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      url text NOT NULL,
      events text[] NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      secret_encrypted text NOT NULL,
      previous_secret_encrypted text,
      secret_rotated_at timestamptz(3),
      failing_since timestamptz(3),
      disabled_reason text,
      disabled_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX webhooks_organization_idx ON webhooks (organization_id, created_at, id);

    -- payload is the body every delivery sends, byte for byte: {type, timestamp, data}.
    CREATE TABLE webhook_events (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      type text NOT NULL,
      resource_id text NOT NULL,
      payload text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_events_created_at_idx ON webhook_events (created_at);

    -- sequence orders the deliveries of one resource to one endpoint (order of occurrence).
    -- SENDING: claimed by one attempt until claimed_until; send_count fences its record.
    -- max_attempts: attempts after which a failure is final (a manual retry allows one more).
    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY,
      webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      event_id uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
      event_type text NOT NULL,
      resource_id text NOT NULL,
      sequence bigint GENERATED ALWAYS AS IDENTITY,
      status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SENDING', 'SUCCEEDED', 'FAILED')),
      attempts integer NOT NULL DEFAULT 0,
      max_attempts integer NOT NULL,
      send_count integer NOT NULL DEFAULT 0,
      resent boolean NOT NULL DEFAULT false,
      claimed_until timestamptz(3),
      next_attempt_at timestamptz(3),
      response_status integer,
      last_error text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      completed_at timestamptz(3)
    );
    CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at, id);
    CREATE INDEX webhook_deliveries_open_idx ON webhook_deliveries (webhook_id, resource_id, sequence)
      WHERE status IN ('PENDING', 'SENDING');
    CREATE INDEX webhook_deliveries_created_at_idx ON webhook_deliveries (created_at);
    CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
  `.execute(db);
}
