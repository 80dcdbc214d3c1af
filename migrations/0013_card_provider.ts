import { type Kysely, sql } from 'kysely';

// Card provider (Stripe Connect): the platform's accounts (each with its own keys: TEST and LIVE
// side by side), which of them each organization may use, and each organization's connected
// account. Secrets (the secret key, the two webhook endpoint secrets) are encrypted with the
// keyring: the service uses them, so they are not hashed, and they are never returned.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE card_provider_platform_accounts (
      id uuid PRIMARY KEY,
      name text NOT NULL UNIQUE,
      mode text NOT NULL CHECK (mode IN ('TEST', 'LIVE')),
      publishable_key text NOT NULL,
      secret_key_encrypted text NOT NULL,
      card_provider_account_id text NOT NULL,
      session_timeout_minutes integer NOT NULL CHECK (session_timeout_minutes BETWEEN 1 AND 1440),
      fee_percentage_bps integer CHECK (fee_percentage_bps BETWEEN 0 AND 10000),
      config jsonb,
      -- Signing secrets of the platform's two webhook endpoints at the provider: events of the
      -- platform account itself, and Connect events of its connected accounts.
      account_webhook_endpoint_secret_encrypted text,
      connect_webhook_endpoint_secret_encrypted text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX card_provider_platform_accounts_created_idx
      ON card_provider_platform_accounts (created_at, id);

    -- A platform account an organization may set up its connected account on (enabled), decided
    -- by the platform. No row: not enabled.
    CREATE TABLE organization_card_provider_accounts (
      organization_id uuid NOT NULL REFERENCES organizations (id),
      platform_card_provider_account_id uuid NOT NULL REFERENCES card_provider_platform_accounts (id),
      enabled boolean NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, platform_card_provider_account_id)
    );

    -- The organization's connected accounts, each on one platform account: the current one
    -- (disconnected_at null; one at most) and those it disconnected, kept so that the
    -- PaymentIntents made on them can still be cancelled and checked. charges_enabled and
    -- details_submitted are the provider's, kept by account.updated events and the REFRESH
    -- command; set-up is complete when both are true.
    CREATE TABLE card_provider_connected_accounts (
      platform_card_provider_account_id uuid NOT NULL REFERENCES card_provider_platform_accounts (id),
      account_id text NOT NULL,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      connect_type text NOT NULL CHECK (connect_type IN ('STANDARD', 'EXPRESS', 'CUSTOM')),
      charges_enabled boolean NOT NULL DEFAULT false,
      details_submitted boolean NOT NULL DEFAULT false,
      disconnected_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (platform_card_provider_account_id, account_id)
    );
    CREATE UNIQUE INDEX card_provider_connected_accounts_current_idx
      ON card_provider_connected_accounts (organization_id) WHERE disconnected_at IS NULL;
    CREATE INDEX card_provider_connected_accounts_account_idx
      ON card_provider_connected_accounts (account_id);
  `.execute(db);
}
