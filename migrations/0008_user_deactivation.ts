import { type Kysely, sql } from 'kysely';

// Who deactivated a user: a platform admin's deactivation (a suspension of the account) may be
// undone by a platform admin only, never by the user's organization admins. Only an inactive user
// can carry the mark; reactivation clears it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE users ADD COLUMN deactivated_by_platform boolean NOT NULL DEFAULT false;
    ALTER TABLE users ADD CONSTRAINT users_deactivated_by_platform_check
      CHECK (NOT (active AND deactivated_by_platform));
  `.execute(db);
}
