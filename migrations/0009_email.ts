import { type Kysely, sql } from 'kysely';

// The organization's own mail: its provider (one per organization), its marketing campaigns, its
// templates (the organization's and each campaign's), and email claims, which hold an item for a
// recipient who redeems it from a link with a PIN.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE marketing_campaigns (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      name text NOT NULL,
      email_from text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX marketing_campaigns_name_key ON marketing_campaigns (organization_id, name);
    CREATE INDEX marketing_campaigns_organization_idx ON marketing_campaigns (organization_id, created_at, id);

    -- One per organization. config holds the non-secret fields; the provider's secret (api_key,
    -- secret_access_key or password) is encrypted with the keyring, null when SMTP has no login.
    CREATE TABLE email_integrations (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL UNIQUE REFERENCES organizations (id),
      provider text NOT NULL CHECK (provider IN ('API_MAIL_PROVIDER', 'CLOUD_MAIL_PROVIDER', 'CUSTOM_SMTP')),
      config jsonb NOT NULL,
      secret_encrypted text,
      active boolean NOT NULL,
      last_error text,
      last_error_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX email_integrations_created_at_idx ON email_integrations (created_at, id);

    -- The organization's version of a template type (campaign_id null) or a campaign's own.
    CREATE TABLE email_templates (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      campaign_id uuid REFERENCES marketing_campaigns (id) ON DELETE CASCADE,
      template_type text NOT NULL CHECK (template_type IN
        ('USER_INVITE', 'FORGOT_PASSWORD_RESET', 'REDEEM_NFT', 'CLAIM_PINCODE', 'CLAIMED_NFT', 'USER_TEST')),
      subject text NOT NULL,
      html text NOT NULL,
      editor_embed_design_json jsonb,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      CONSTRAINT email_templates_key UNIQUE NULLS NOT DISTINCT (organization_id, campaign_id, template_type)
    );
    CREATE INDEX email_templates_campaign_idx ON email_templates (campaign_id) WHERE campaign_id IS NOT NULL;

    -- Mail of a campaign is sent from its email_from, captured when the mail is queued.
    ALTER TABLE mail_outbox ADD COLUMN campaign_id uuid;
    ALTER TABLE mail_outbox ADD COLUMN sender text;

    CREATE TABLE email_claims (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      collection_id uuid NOT NULL REFERENCES collections (id),
      item_id uuid NOT NULL REFERENCES items (id),
      email text NOT NULL,
      quantity numeric(78, 0) NOT NULL CHECK (quantity > 0),
      tx_payer text NOT NULL DEFAULT 'SELLER' CHECK (tx_payer IN ('SELLER', 'BUYER')),
      type text,
      campaign_id uuid REFERENCES marketing_campaigns (id) ON DELETE SET NULL,
      -- SHA-256 of the link's secret; a resend replaces it, so the old link stops working.
      token_hash bytea NOT NULL UNIQUE,
      expiration timestamptz(3) NOT NULL,
      active boolean NOT NULL DEFAULT true,
      deactivation_reason text CHECK (deactivation_reason IN ('REVOKED', 'EXPIRED')),
      claimed_at timestamptz(3),
      to_address text,
      transaction_id uuid REFERENCES transactions (id),
      voucher_id uuid,
      -- The PIN mailed by verify: its hash, when it stops working, and wrong tries against it.
      pin_hash bytea,
      pin_expires_at timestamptz(3),
      pin_failed_attempts integer NOT NULL DEFAULT 0,
      last_pin_code_email_sent_at timestamptz(3),
      -- The latest REDEEM_NFT mail, so the claim can show that its mail failed.
      mail_outbox_id uuid REFERENCES mail_outbox (id),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      CHECK (deactivation_reason IS NULL OR NOT active),
      CHECK (claimed_at IS NULL OR to_address IS NOT NULL)
    );
    CREATE INDEX email_claims_created_at_idx ON email_claims (organization_id, created_at, id);
    CREATE INDEX email_claims_expiration_idx ON email_claims (organization_id, expiration, id);
    CREATE INDEX email_claims_claimed_at_idx ON email_claims (organization_id, claimed_at, id);
    CREATE INDEX email_claims_item_idx ON email_claims (item_id, created_at);
    CREATE INDEX email_claims_transaction_idx ON email_claims (transaction_id) WHERE transaction_id IS NOT NULL;
    CREATE INDEX email_claims_due_idx ON email_claims (expiration) WHERE active AND claimed_at IS NULL;
  `.execute(db);
}
