import { type Kysely, sql } from 'kysely';

// Sales: listings (items reserved for sale, with the counters that keep holds and sales within
// quantity_listed) and purchase intents (a buyer's hold on units until paid, then its fulfilment).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE listings (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      collection_id uuid NOT NULL REFERENCES collections (id),
      -- Set for an item-level listing (selector item_id), null for a collection-level one.
      item_id uuid REFERENCES items (id),
      status text NOT NULL CHECK (status IN ('PENDING_TX', 'ACTIVE', 'COMPLETE', 'CANCELLED')),
      sale_type text NOT NULL DEFAULT 'DEFAULT',
      price numeric(78, 0) NOT NULL,
      currency text NOT NULL,
      payment_providers text[] NOT NULL,
      max_quantity_per_tx integer NOT NULL CHECK (max_quantity_per_tx > 0),
      quantity_listed integer NOT NULL CHECK (quantity_listed > 0),
      -- Units held by PENDING intents and units of CONFIRMED intents: the hold is taken by one
      -- conditional update of these counters, so held + sold never exceeds quantity_listed.
      quantity_held integer NOT NULL DEFAULT 0 CHECK (quantity_held >= 0),
      quantity_sold integer NOT NULL DEFAULT 0 CHECK (quantity_sold >= 0),
      start_time timestamptz(3),
      end_time timestamptz(3),
      policy jsonb NOT NULL,
      campaign_id uuid REFERENCES marketing_campaigns (id) ON DELETE SET NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      CHECK (quantity_held + quantity_sold <= quantity_listed)
    );
    CREATE INDEX listings_organization_idx ON listings (organization_id, created_at, id);
    CREATE INDEX listings_collection_idx ON listings (collection_id, status);
    CREATE INDEX listings_item_idx ON listings (item_id) WHERE item_id IS NOT NULL;
    CREATE INDEX listings_campaign_idx ON listings (campaign_id) WHERE campaign_id IS NOT NULL;

    CREATE TABLE purchase_intents (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      listing_id uuid NOT NULL REFERENCES listings (id),
      quantity integer NOT NULL CHECK (quantity > 0),
      status text NOT NULL CHECK (status IN ('PENDING', 'UNRESOLVED', 'CANCELLED', 'CONFIRMED', 'EXPIRED')),
      fulfillment_status text NOT NULL DEFAULT 'PENDING'
        CHECK (fulfillment_status IN ('PENDING', 'ASSIGNED', 'COMPLETED', 'EXCEPTION')),
      fulfillment_method text NOT NULL CHECK (fulfillment_method IN ('EMAIL', 'TRANSFER', 'VOUCHER')),
      payment_provider text NOT NULL
        CHECK (payment_provider IN ('CARD_PROVIDER', 'CRYPTO_PROVIDER', 'MINT_VOUCHER', 'EMAIL_CLAIM')),
      email text,
      eth_address text,
      -- SHA-256 of the client_token returned once at creation.
      client_token_hash bytea NOT NULL,
      item_ids uuid[] NOT NULL DEFAULT '{}',
      item_claim_ids uuid[] NOT NULL DEFAULT '{}',
      transaction_ids uuid[] NOT NULL DEFAULT '{}',
      provider_price jsonb NOT NULL,
      data jsonb,
      card_provider_payment_intent_id text,
      crypto_provider_charge_id text,
      fulfillment_error text,
      expiration timestamptz(3) NOT NULL,
      confirmed_at timestamptz(3),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX purchase_intents_organization_idx ON purchase_intents (organization_id, created_at, id);
    CREATE INDEX purchase_intents_listing_idx ON purchase_intents (listing_id, created_at, id);
    -- max_per_user: a buyer's PENDING and CONFIRMED units on a listing.
    CREATE INDEX purchase_intents_email_idx ON purchase_intents (listing_id, lower(email))
      WHERE email IS NOT NULL AND status IN ('PENDING', 'CONFIRMED');
    CREATE INDEX purchase_intents_address_idx ON purchase_intents (listing_id, eth_address)
      WHERE eth_address IS NOT NULL AND status IN ('PENDING', 'CONFIRMED');
    CREATE INDEX purchase_intents_due_idx ON purchase_intents (expiration) WHERE status = 'PENDING';
    CREATE INDEX purchase_intents_transactions_idx ON purchase_intents USING gin (transaction_ids);
  `.execute(db);
}
