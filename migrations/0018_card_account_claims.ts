import { type Kysely, sql } from 'kysely';

// An organization's connected account is created at the card provider in three steps: the
// creation is claimed (this row, committed), the provider is called with the claim's
// idempotency key, and the account it answers is recorded (the claim removed). A call that
// failed, or whose answer was lost in a crash, is made again with the same key, so the provider
// answers the account it made the first time instead of making a second one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE card_provider_account_claims (
      organization_id uuid NOT NULL REFERENCES organizations (id),
      platform_card_provider_account_id uuid NOT NULL REFERENCES card_provider_platform_accounts (id),
      idempotency_key text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, platform_card_provider_account_id)
    );
  `.execute(db);
}
