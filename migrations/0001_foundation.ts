import { type Kysely, sql } from 'kysely';

// Forward-only: there is no down(). A later change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE organizations (
      id uuid PRIMARY KEY,
      name text NOT NULL,
      is_enabled boolean NOT NULL DEFAULT true,
      mfa_required boolean NOT NULL DEFAULT false,
      network_ids integer[] NOT NULL DEFAULT '{}',
      card_provider_connect_types text[] NOT NULL DEFAULT '{}',
      identity_provider_id text,
      auto_fund boolean NOT NULL DEFAULT false,
      domain text,
      hardware_wallet boolean NOT NULL DEFAULT false,
      platform_sale_fee integer NOT NULL DEFAULT 0 CHECK (platform_sale_fee BETWEEN 0 AND 10000),
      payout_address text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX organizations_name_key ON organizations (lower(name));
    CREATE INDEX organizations_created_at_idx ON organizations (created_at, id);

    CREATE TABLE roles (
      id uuid PRIMARY KEY,
      name text NOT NULL UNIQUE,
      description text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    INSERT INTO roles (id, name, description, created_at) VALUES
      ('0190f1c0-0000-7000-8000-000000000001', 'PLATFORM_ADMIN', 'Everything, in every organization', '2026-01-01T00:00:00.001Z'),
      ('0190f1c0-0000-7000-8000-000000000002', 'ORG_ADMIN', 'Everything in its organization', '2026-01-01T00:00:00.002Z'),
      ('0190f1c0-0000-7000-8000-000000000003', 'ORG_MEMBER', 'Read-only in its organization, plus its own API keys and password', '2026-01-01T00:00:00.003Z');

    CREATE TABLE users (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      email text NOT NULL,
      role_id uuid NOT NULL REFERENCES roles (id),
      password_hash text,
      active boolean NOT NULL DEFAULT true,
      verified_at timestamptz(3),
      mfa_enabled boolean NOT NULL DEFAULT false,
      mfa_secret text,
      mfa_pending_secret text,
      mfa_last_step bigint,
      session_version integer NOT NULL DEFAULT 0,
      last_seen timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_email_key ON users (lower(email));
    CREATE INDEX users_organization_idx ON users (organization_id, created_at, id);
    CREATE INDEX users_created_at_idx ON users (created_at, id);

    CREATE TABLE user_tokens (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id),
      purpose text NOT NULL CHECK (purpose IN ('VERIFY', 'RESET_PASSWORD')),
      token_hash bytea NOT NULL UNIQUE,
      expires_at timestamptz(3) NOT NULL,
      used_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX user_tokens_user_idx ON user_tokens (user_id, purpose);

    CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id),
      name text NOT NULL,
      prefix text NOT NULL,
      key_hash bytea NOT NULL UNIQUE,
      expiration timestamptz(3),
      last_used timestamptz(3),
      revoked_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at, id);

    CREATE TABLE mail_outbox (
      id uuid PRIMARY KEY,
      organization_id uuid REFERENCES organizations (id),
      template_type text NOT NULL,
      to_address text NOT NULL,
      subject text NOT NULL,
      html text NOT NULL,
      text text NOT NULL,
      status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
      attempts integer NOT NULL DEFAULT 0,
      last_error text,
      transport text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      sent_at timestamptz(3)
    );
    CREATE INDEX mail_outbox_status_idx ON mail_outbox (status, created_at);

    CREATE TABLE mailbox_messages (
      id uuid PRIMARY KEY,
      outbox_id uuid NOT NULL UNIQUE REFERENCES mail_outbox (id),
      "to" text NOT NULL,
      subject text NOT NULL,
      html text NOT NULL,
      text text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX mailbox_messages_created_at_idx ON mailbox_messages (created_at, id);

    CREATE TABLE idempotency_keys (
      scope text NOT NULL,
      key text NOT NULL,
      method text NOT NULL,
      path text NOT NULL,
      request_hash bytea NOT NULL,
      status_code integer,
      response_body text,
      response_content_type text,
      locked_until timestamptz(3) NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (scope, key)
    );
    CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);

    CREATE TABLE rate_limit_buckets (
      key text PRIMARY KEY,
      window_start timestamptz(3) NOT NULL,
      hits integer NOT NULL
    );
  `.execute(db);
}
