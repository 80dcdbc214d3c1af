import { type Kysely, sql } from 'kysely';

// The organization's crypto provider (Coinbase Business payment links): a CDP API key that signs
// each call (its EC P-256 private key, encrypted) and the secret of the organization's webhook
// subscription for payment-link events (encrypted: it verifies signatures, so it is kept, not
// hashed). One per organization. The network is the one payment links are paid on; the service
// checks it against the provider's list (no CHECK: that list grows without a migration).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE crypto_provider_configs (
      organization_id uuid PRIMARY KEY REFERENCES organizations (id),
      api_key_id text NOT NULL,
      api_key_secret_encrypted text NOT NULL,
      webhook_secret_encrypted text NOT NULL,
      network text NOT NULL DEFAULT 'base',
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
  `.execute(db);
}
