import { sql } from 'kysely';
import type { Executor } from '../../../db/executor.ts';
import type { MarketingCampaignRow } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export function insertCampaign(
  db: Executor,
  row: { id: string; organization_id: string; name: string; email_from: string },
): Promise<MarketingCampaignRow> {
  return db.insertInto('marketing_campaigns').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findCampaign(db: Executor, id: string): Promise<MarketingCampaignRow | undefined> {
  return db.selectFrom('marketing_campaigns').selectAll().where('id', '=', id).executeTakeFirst();
}

export function updateCampaign(
  db: Executor,
  id: string,
  patch: { name?: string; email_from?: string },
): Promise<MarketingCampaignRow> {
  return db
    .updateTable('marketing_campaigns')
    .set({ ...patch, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Its templates go with it (ON DELETE CASCADE); claims keep working without it (SET NULL). */
export async function deleteCampaign(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('marketing_campaigns').where('id', '=', id).execute();
}

export function listCampaigns(
  db: Executor,
  page: PageParams,
  filters: { organizationId: string; name: string | undefined },
): Promise<PageResult<MarketingCampaignRow>> {
  let query = db
    .selectFrom('marketing_campaigns')
    .selectAll()
    .where('organization_id', '=', filters.organizationId);
  if (filters.name !== undefined) query = query.where('name', '=', filters.name);
  return paginate(query, {
    page,
    filters,
    sortColumn: 'marketing_campaigns.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'marketing_campaigns.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}
