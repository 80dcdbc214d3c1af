import { type Kysely, sql } from 'kysely';

// Reservations as holds: any holder of an item (a mint or transfer request, a listing, a purchase
// intent, an email claim), and when a hold ends by itself (a purchase intent's payment session,
// an email claim's expiration), so the expiry job finds the holds that are due.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE item_reservations DROP CONSTRAINT item_reservations_kind_check;
    ALTER TABLE item_reservations ADD CONSTRAINT item_reservations_kind_check
      CHECK (kind IN ('MINT', 'TRANSFER', 'LISTING', 'PURCHASE_INTENT', 'EMAIL_CLAIM'));
    ALTER TABLE item_reservations ADD COLUMN expires_at timestamptz(3);
    CREATE INDEX item_reservations_expiry_idx ON item_reservations (expires_at)
      WHERE released_at IS NULL AND expires_at IS NOT NULL;
  `.execute(db);
}
