import { type Kysely, sql } from 'kysely';

// An email claim that delivers an ERC-1155 sale holds no reservation of its own: the item's one
// reservation (a unique index keeps one per item) stays the listing's, which sells the item's
// other units to other buyers. covered_by names that listing: the claim's units are among those
// it reserved, its redeem mints or transfers under the listing's reservation, and a cancelled
// listing keeps the item while any claim it covers may still deliver.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE email_claims ADD COLUMN covered_by uuid REFERENCES listings (id);
    CREATE INDEX email_claims_covered_by_idx ON email_claims (covered_by) WHERE covered_by IS NOT NULL;
  `.execute(db);
}
