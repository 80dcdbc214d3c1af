import { sql } from 'kysely';
import type { Executor } from '../../../db/executor.ts';
import type { CryptoProviderConfigRow } from '../../../db/schema.ts';

export function findCryptoProviderConfig(
  db: Executor,
  organizationId: string,
): Promise<CryptoProviderConfigRow | undefined> {
  return db
    .selectFrom('crypto_provider_configs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
}

/** One per organization: a second PUT replaces the first (the primary key decides, also under a race). */
export function upsertCryptoProviderConfig(
  db: Executor,
  row: {
    organization_id: string;
    api_key_id: string;
    api_key_secret_encrypted: string;
    webhook_secret_encrypted: string;
    network: string;
  },
): Promise<CryptoProviderConfigRow> {
  return db
    .insertInto('crypto_provider_configs')
    .values(row)
    .onConflict((oc) =>
      oc.column('organization_id').doUpdateSet({
        api_key_id: row.api_key_id,
        api_key_secret_encrypted: row.api_key_secret_encrypted,
        webhook_secret_encrypted: row.webhook_secret_encrypted,
        network: row.network,
        updated_at: sql<Date>`now()`,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteCryptoProviderConfig(db: Executor, organizationId: string): Promise<void> {
  await db.deleteFrom('crypto_provider_configs').where('organization_id', '=', organizationId).execute();
}
