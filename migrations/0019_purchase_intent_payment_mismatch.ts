import { type Kysely, sql } from 'kysely';

// A payment a provider reports that does not match its purchase intent (another amount,
// currency, session or provider) is recorded on the intent, the latest one, for the
// organization to settle by hand; before, it was only logged. The admin list filters on it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE purchase_intents ADD COLUMN payment_mismatch jsonb;
    CREATE INDEX purchase_intents_payment_mismatch_idx
      ON purchase_intents (organization_id, created_at, id) WHERE payment_mismatch IS NOT NULL;
  `.execute(db);
}
