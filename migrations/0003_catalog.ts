import { type Kysely, sql } from 'kysely';

// The catalog: collections and their contracts, item types, items, the reservations that keep an
// item in one flow at a time, and the mint and transfer requests that move items on-chain.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE item_types (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      name text NOT NULL,
      json_schema jsonb NOT NULL,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX item_types_created_at_idx ON item_types (created_at, id);
    CREATE INDEX item_types_organization_idx ON item_types (organization_id, created_at, id);

    CREATE TABLE collections (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      name text NOT NULL,
      default_item_type_id uuid REFERENCES item_types (id),
      image_url text,
      reveal_strategy text NOT NULL CHECK (reveal_strategy IN ('INSTANT', 'DELAYED')),
      preview_metadata jsonb,
      editable_metadata boolean NOT NULL DEFAULT false,
      reveal_hidden boolean NOT NULL,
      functions_enabled boolean NOT NULL DEFAULT false,
      -- {receiver, amount_bps} (ERC-2981)
      royalty_info jsonb,
      -- The deployment: null type until a deployment request is submitted.
      deployment_type text CHECK (deployment_type IN ('PLATFORM', 'CUSTOM', 'EXTERNAL')),
      deployment_status text CHECK (deployment_status IN ('PENDING', 'SUCCESS', 'FAILED')),
      network_id integer REFERENCES networks (id),
      token_type text CHECK (token_type IN ('ERC721', 'ERC1155')),
      symbol text,
      token_id_assignment_strategy text CHECK (token_id_assignment_strategy IN ('AUTOMATIC', 'MANUAL', 'EXTERNAL')),
      platform_variant text,
      -- The ABI the service calls the contract with (contract functions, mints, transfers).
      abi jsonb,
      contract_address text,
      capabilities text[] NOT NULL DEFAULT '{}',
      deployment_transaction_id uuid REFERENCES transactions (id),
      deployment_failure_reason text,
      max_supply numeric(78, 0),
      owner_address text,
      -- AUTOMATIC token ids are taken from here under the row lock: unique and increasing.
      next_token_id numeric(78, 0) NOT NULL DEFAULT 1,
      -- Kept by the items triggers below: a list's total_results without counting a million rows.
      item_count bigint NOT NULL DEFAULT 0 CHECK (item_count >= 0),
      locked_item_count bigint NOT NULL DEFAULT 0 CHECK (locked_item_count >= 0),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      UNIQUE (organization_id, name),
      CHECK ((deployment_type IS NULL) = (deployment_status IS NULL))
    );
    CREATE INDEX collections_created_at_idx ON collections (created_at, id);
    CREATE INDEX collections_organization_name_idx ON collections (organization_id, name, id);
    CREATE INDEX collections_name_idx ON collections (name, id);
    CREATE INDEX collections_contract_idx ON collections (contract_address) WHERE contract_address IS NOT NULL;
    CREATE INDEX collections_deployment_transaction_idx ON collections (deployment_transaction_id)
      WHERE deployment_transaction_id IS NOT NULL;

    -- Contract functions are read from the collection's ABI; a row exists once one was switched.
    CREATE TABLE collection_functions (
      collection_id uuid NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
      selector text NOT NULL CHECK (selector ~ '^[0-9a-f]{8}$'),
      enabled boolean NOT NULL,
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      PRIMARY KEY (collection_id, selector)
    );

    CREATE TABLE items (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      collection_id uuid NOT NULL REFERENCES collections (id),
      item_type_id uuid REFERENCES item_types (id),
      attributes jsonb NOT NULL,
      locked boolean NOT NULL DEFAULT false,
      max_supply numeric(78, 0),
      token_id numeric(78, 0),
      token_status text NOT NULL DEFAULT 'NOT_MINTED' CHECK (token_status IN ('NOT_MINTED', 'MINTING', 'MINTED')),
      -- Units ever minted (ERC-721: 0 or 1).
      minted_supply numeric(78, 0) NOT NULL DEFAULT 0,
      -- Units the organization's wallet holds, as the service's own mints and transfers left them.
      held_supply numeric(78, 0) NOT NULL DEFAULT 0,
      -- {receiver, amount_bps}
      royalty_info jsonb,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now(),
      CHECK (NOT locked OR max_supply IS NOT NULL)
    );
    CREATE INDEX items_collection_idx ON items (collection_id, created_at, id);
    CREATE INDEX items_collection_unlocked_idx ON items (collection_id, created_at, id) WHERE NOT locked;
    CREATE UNIQUE INDEX items_token_id_key ON items (collection_id, token_id) WHERE token_id IS NOT NULL;
    CREATE INDEX items_attributes_idx ON items USING gin (attributes jsonb_path_ops);
    -- In creation order: an item type's schema edit re-validates its items in keyset batches.
    CREATE INDEX items_item_type_idx ON items (item_type_id, created_at, id) WHERE item_type_id IS NOT NULL;

    -- collections.item_count and locked_item_count follow every statement on items, whatever
    -- path wrote it. One update per collection, in id order so concurrent statements touching
    -- several collections cannot deadlock.
    CREATE FUNCTION items_apply_counts(deltas jsonb) RETURNS void LANGUAGE plpgsql AS $fn$
    DECLARE d record;
    BEGIN
      FOR d IN
        SELECT (e->>'collection_id')::uuid AS collection_id, (e->>'items')::bigint AS items, (e->>'locked')::bigint AS locked
        FROM jsonb_array_elements(deltas) e
        ORDER BY 1
      LOOP
        UPDATE collections
          SET item_count = item_count + d.items, locked_item_count = locked_item_count + d.locked
          WHERE id = d.collection_id;
      END LOOP;
    END
    $fn$;

    CREATE FUNCTION items_count_insert() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM items_apply_counts(coalesce(jsonb_agg(jsonb_build_object('collection_id', collection_id, 'items', n, 'locked', l)), '[]'))
      FROM (SELECT collection_id, count(*) AS n, count(*) FILTER (WHERE locked) AS l FROM new_rows GROUP BY collection_id) g;
      RETURN NULL;
    END
    $fn$;
    CREATE FUNCTION items_count_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM items_apply_counts(coalesce(jsonb_agg(jsonb_build_object('collection_id', collection_id, 'items', -n, 'locked', -l)), '[]'))
      FROM (SELECT collection_id, count(*) AS n, count(*) FILTER (WHERE locked) AS l FROM old_rows GROUP BY collection_id) g;
      RETURN NULL;
    END
    $fn$;
    CREATE FUNCTION items_count_update() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM items_apply_counts(coalesce(jsonb_agg(jsonb_build_object('collection_id', collection_id, 'items', n, 'locked', l)), '[]'))
      FROM (
        SELECT collection_id, sum(n) AS n, sum(l) AS l FROM (
          SELECT collection_id, -1 AS n, CASE WHEN locked THEN -1 ELSE 0 END AS l FROM old_rows
          UNION ALL
          SELECT collection_id, 1, CASE WHEN locked THEN 1 ELSE 0 END FROM new_rows
        ) changes
        GROUP BY collection_id
        HAVING sum(n) <> 0 OR sum(l) <> 0
      ) g;
      RETURN NULL;
    END
    $fn$;
    CREATE TRIGGER items_count_insert AFTER INSERT ON items
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION items_count_insert();
    CREATE TRIGGER items_count_delete AFTER DELETE ON items
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION items_count_delete();
    CREATE TRIGGER items_count_update AFTER UPDATE ON items
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION items_count_update();

    -- What keeps an item in one flow at a time (mint, transfer, listing, email claim): at most one
    -- active reservation per item, enforced by the unique index.
    CREATE TABLE item_reservations (
      id uuid PRIMARY KEY,
      item_id uuid NOT NULL REFERENCES items (id),
      kind text NOT NULL CHECK (kind IN ('MINT', 'TRANSFER', 'LISTING', 'EMAIL_CLAIM')),
      -- The mint request, transfer request, listing or email claim holding the item.
      holder_id uuid NOT NULL,
      quantity numeric(78, 0) NOT NULL CHECK (quantity > 0),
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      released_at timestamptz(3)
    );
    CREATE UNIQUE INDEX item_reservations_active_key ON item_reservations (item_id) WHERE released_at IS NULL;
    CREATE INDEX item_reservations_holder_idx ON item_reservations (holder_id);
    -- An item's reservation history (item status), and the foreign key check when an item is deleted.
    CREATE INDEX item_reservations_item_idx ON item_reservations (item_id, created_at);

    CREATE TABLE mint_requests (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      collection_id uuid NOT NULL REFERENCES collections (id),
      item_id uuid NOT NULL REFERENCES items (id),
      quantity numeric(78, 0) NOT NULL CHECK (quantity > 0),
      to_address text NOT NULL,
      transaction_id uuid NOT NULL REFERENCES transactions (id),
      state text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'SUBMITTED', 'COMPLETED', 'FAILED')),
      failure_reason text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX mint_requests_organization_idx ON mint_requests (organization_id, created_at, id);
    CREATE INDEX mint_requests_created_at_idx ON mint_requests (created_at, id);
    CREATE INDEX mint_requests_item_idx ON mint_requests (item_id, created_at, id);
    CREATE INDEX mint_requests_collection_idx ON mint_requests (collection_id, created_at, id);
    CREATE INDEX mint_requests_transaction_idx ON mint_requests (transaction_id);

    CREATE TABLE transfer_requests (
      id uuid PRIMARY KEY,
      organization_id uuid NOT NULL REFERENCES organizations (id),
      collection_id uuid NOT NULL REFERENCES collections (id),
      item_id uuid NOT NULL REFERENCES items (id),
      quantity numeric(78, 0) NOT NULL CHECK (quantity > 0),
      to_address text NOT NULL,
      transaction_id uuid NOT NULL REFERENCES transactions (id),
      state text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'SUBMITTED', 'COMPLETED', 'FAILED')),
      failure_reason text,
      created_at timestamptz(3) NOT NULL DEFAULT now(),
      updated_at timestamptz(3) NOT NULL DEFAULT now()
    );
    CREATE INDEX transfer_requests_organization_idx ON transfer_requests (organization_id, created_at, id);
    CREATE INDEX transfer_requests_created_at_idx ON transfer_requests (created_at, id);
    CREATE INDEX transfer_requests_item_idx ON transfer_requests (item_id, created_at, id);
    CREATE INDEX transfer_requests_collection_idx ON transfer_requests (collection_id, created_at, id);
    CREATE INDEX transfer_requests_transaction_idx ON transfer_requests (transaction_id);
  `.execute(db);
}
