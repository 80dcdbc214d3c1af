import { type Kysely, sql } from 'kysely';

// A token flow's record (a mint_requests or transfer_requests row) names what it delivers for:
// a request of its own (REQUEST), or an email claim or a purchase intent (owner_id). Its
// settlement tells that owner, found by kind, what became of its records; before, each owner
// looked for its rows by transaction, and the order of the handlers decided who saw the records
// open. Records written before are given their owner from the claims and intents that started
// them (each claim or intent delivery has transactions of its own).
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['mint_requests', 'transfer_requests']) {
    await sql`
      ALTER TABLE ${sql.table(table)}
        ADD COLUMN owner_kind text NOT NULL DEFAULT 'REQUEST'
          CHECK (owner_kind IN ('REQUEST', 'EMAIL_CLAIM', 'PURCHASE_INTENT')),
        ADD COLUMN owner_id uuid,
        ADD CONSTRAINT ${sql.raw(`${table}_owner`)} CHECK ((owner_kind = 'REQUEST') = (owner_id IS NULL))
    `.execute(db);
    await sql`
      UPDATE ${sql.table(table)} r SET owner_kind = 'EMAIL_CLAIM', owner_id = c.id
      FROM email_claims c WHERE c.transaction_id = r.transaction_id AND c.item_id = r.item_id
    `.execute(db);
    await sql`
      UPDATE ${sql.table(table)} r SET owner_kind = 'PURCHASE_INTENT', owner_id = i.id
      FROM purchase_intents i WHERE r.transaction_id = ANY (i.transaction_ids)
    `.execute(db);
  }
}
