import { type Kysely, sql } from 'kysely';

// Outbox delivery claims a row (SENDING until claimed_until) and commits before it calls the
// transport, so no lock or connection is held across the call. A claim that expires while
// SENDING means the process died between send and record: the next attempt sends again (same
// Message-ID) and the row says so in `resent`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_status_check;
    ALTER TABLE mail_outbox
      ADD CONSTRAINT mail_outbox_status_check CHECK (status IN ('PENDING', 'SENDING', 'SENT', 'FAILED')),
      ADD COLUMN claimed_until timestamptz(3),
      ADD COLUMN send_count integer NOT NULL DEFAULT 0,
      ADD COLUMN resent boolean NOT NULL DEFAULT false;
  `.execute(db);
}
