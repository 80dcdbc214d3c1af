import { type Kysely, sql } from 'kysely';

// Deliveries batched across buyers: a MINT or TRANSFER transaction may be a batch that token flow
// records of one collection and one call join while it is open (PENDING, batch_open), each with
// its own record; the relayer closes it (writes its calldata from the records, batch_open false)
// when it is full or its window has passed, and sends it as any other. batch_key names what may
// join (the call and the collection), batch_size counts the entries, batch_cap bounds them (the
// network's item and gas caps). A network's config gains the batch caps and window (config.batch,
// read with its defaults where a stored config has none).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE transactions
      ADD COLUMN batch_key text,
      ADD COLUMN batch_open boolean NOT NULL DEFAULT false,
      ADD COLUMN batch_size integer NOT NULL DEFAULT 0 CHECK (batch_size >= 0),
      ADD COLUMN batch_cap integer NOT NULL DEFAULT 0 CHECK (batch_cap >= 0),
      ADD CONSTRAINT transactions_batch_open CHECK (NOT batch_open OR (state = 'PENDING' AND batch_key IS NOT NULL));
    CREATE INDEX transactions_open_batch_idx ON transactions (batch_key, created_at, id) WHERE batch_open;
  `.execute(db);
}
