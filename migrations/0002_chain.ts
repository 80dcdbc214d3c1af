import { type Kysely, sql } from 'kysely';

// Networks, payment tokens, wallets, and the relayer's durable transaction ledger.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE networks (
      id integer PRIMARY KEY CHECK (id >= 0),
      name text NOT NULL,
      enabled boolean NOT NULL,
      testnet boolean NOT NULL,
      config jsonb NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX networks_created_at_idx ON networks (created_at, id);

    CREATE TABLE payment_tokens (
      network_id integer NOT NULL REFERENCES networks (id),
      address text NOT NULL,
      symbol text NOT NULL,
      decimals integer NOT NULL CHECK (decimals BETWEEN 0 AND 255),
      eth boolean NOT NULL DEFAULT false,
      eur_stablecoin boolean NOT NULL DEFAULT false,
      usd_stablecoin boolean NOT NULL DEFAULT false,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (network_id, address)
    );
    CREATE INDEX payment_tokens_created_at_idx ON payment_tokens (network_id, created_at, address);

    -- Signing wallets: one per organization, and the platform's funding wallet.
    CREATE TABLE wallets (
      id uuid PRIMARY KEY,
      organization_id uuid REFERENCES organizations (id),
      kind text NOT NULL CHECK (kind IN ('ORGANIZATION', 'PLATFORM')),
      address text NOT NULL UNIQUE,
      private_key text NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      CHECK ((kind = 'PLATFORM') = (organization_id IS NULL))
    );
    CREATE UNIQUE INDEX wallets_organization_key ON wallets (organization_id) WHERE kind = 'ORGANIZATION';
    CREATE UNIQUE INDEX wallets_platform_key ON wallets (kind) WHERE kind = 'PLATFORM';
    CREATE INDEX wallets_created_at_idx ON wallets (created_at, id);

    -- Next nonce per (network, sender): locked FOR UPDATE by the transaction that queues a row,
    -- so a nonce is never handed out twice or lost.
    CREATE TABLE wallet_nonces (
      network_id integer NOT NULL REFERENCES networks (id),
      address text NOT NULL,
      next_nonce bigint NOT NULL CHECK (next_nonce >= 0),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (network_id, address)
    );

    -- Which worker instance drives a (network, sender) pair; a lease that is not renewed expires.
    CREATE TABLE relayer_leases (
      network_id integer NOT NULL REFERENCES networks (id),
      address text NOT NULL,
      holder text NOT NULL,
      epoch bigint NOT NULL,
      expires_at timestamptz(3) NOT NULL,
      PRIMARY KEY (network_id, address)
    );

    CREATE TABLE transactions (
      id uuid PRIMARY KEY,
      organization_id uuid REFERENCES organizations (id),
      network_id integer NOT NULL REFERENCES networks (id),
      wallet_id uuid NOT NULL REFERENCES wallets (id),
      from_address text NOT NULL,
      type text NOT NULL,
      to_address text,
      data text NOT NULL DEFAULT '0x',
      value numeric(78, 0) NOT NULL DEFAULT 0,
      gas_limit numeric(78, 0),
      state text NOT NULL DEFAULT 'PENDING'
        CHECK (state IN ('PENDING', 'QUEUED', 'SUBMITTED', 'COMPLETED', 'CANCELLED')),
      nonce bigint,
      tx_hash text,
      raw_tx text,
      max_fee_per_gas numeric(78, 0),
      max_priority_fee_per_gas numeric(78, 0),
      gas_price numeric(78, 0),
      attempts integer NOT NULL DEFAULT 0,
      submitted_at timestamptz(3),
      submitted_block bigint,
      mined_block_number bigint,
      mined_block_hash text,
      on_chain_status text CHECK (on_chain_status IN ('SUCCESS', 'FAILURE')),
      gas_used numeric(78, 0),
      effective_gas_price numeric(78, 0),
      fee numeric(78, 0),
      contract_address text,
      failure_reason text,
      last_error text,
      next_attempt_at timestamptz(3) NOT NULL DEFAULT now(),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      completed_at timestamptz(3),
      -- A nonce belongs to at most one live row per sender and network.
      CHECK ((state IN ('PENDING', 'CANCELLED')) OR nonce IS NOT NULL)
    );
    CREATE UNIQUE INDEX transactions_live_nonce_key ON transactions (network_id, from_address, nonce)
      WHERE state IN ('QUEUED', 'SUBMITTED') OR (state = 'COMPLETED' AND nonce IS NOT NULL);
    CREATE INDEX transactions_work_idx ON transactions (network_id, from_address, state, created_at)
      WHERE state IN ('PENDING', 'QUEUED', 'SUBMITTED');
    CREATE INDEX transactions_created_at_idx ON transactions (created_at, id);
    CREATE INDEX transactions_organization_idx ON transactions (organization_id, created_at, id);

    -- Every signed version of a transaction (fee bumps re-sign with the same nonce); any of them may
    -- be the one that is mined.
    CREATE TABLE transaction_attempts (
      id uuid PRIMARY KEY,
      transaction_id uuid NOT NULL REFERENCES transactions (id),
      tx_hash text NOT NULL UNIQUE,
      raw_tx text NOT NULL,
      nonce bigint NOT NULL,
      max_fee_per_gas numeric(78, 0),
      max_priority_fee_per_gas numeric(78, 0),
      gas_price numeric(78, 0),
      created_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX transaction_attempts_transaction_idx ON transaction_attempts (transaction_id, created_at);
  `.execute(db);
}
