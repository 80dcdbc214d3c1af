import { type Kysely, sql } from 'kysely';

// An email claim's free sale is written CONFIRMED with its intent, in one statement, and completed
// (items assigned, delivery queued) in a transaction after it; the expiry sweep completes one that a
// crash left in between, found by this index without reading the table.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX purchase_intents_unfinished_claim_sales_idx ON purchase_intents (created_at)
      WHERE payment_provider = 'EMAIL_CLAIM' AND status = 'CONFIRMED' AND fulfillment_status = 'PENDING';
  `.execute(db);
}
