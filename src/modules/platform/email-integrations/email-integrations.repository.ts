import { sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { EmailIntegrationRow } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';
import type { EmailProvider } from './email-integrations.schemas.ts';

export interface NewEmailIntegration {
  id: string;
  organization_id: string;
  provider: EmailProvider;
  config: Record<string, unknown>;
  secret_encrypted: string | null;
  active: boolean;
}

/** Undefined when the organization has one already (its unique index decides, also under a race). */
export function insertEmailIntegration(
  db: Executor,
  row: NewEmailIntegration,
): Promise<EmailIntegrationRow | undefined> {
  return db
    .insertInto('email_integrations')
    .values({ ...row, config: JSON.stringify(row.config) })
    .onConflict((oc) => oc.column('organization_id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function findEmailIntegration(db: Executor, id: string): Promise<EmailIntegrationRow | undefined> {
  return db.selectFrom('email_integrations').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findEmailIntegrationForUpdate(db: Tx, id: string): Promise<EmailIntegrationRow | undefined> {
  return db.selectFrom('email_integrations').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** updated_at strictly increases on every edit: mail clients are cached by (id, updated_at). */
export function updateEmailIntegration(
  db: Executor,
  id: string,
  patch: { config: Record<string, unknown>; secret_encrypted: string | null; active: boolean },
): Promise<EmailIntegrationRow> {
  return db
    .updateTable('email_integrations')
    .set({
      config: JSON.stringify(patch.config),
      secret_encrypted: patch.secret_encrypted,
      active: patch.active,
      updated_at: sql<Date>`greatest(clock_timestamp(), updated_at + interval '1 millisecond')`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteEmailIntegration(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('email_integrations').where('id', '=', id).execute();
}

/** Not an edit: updated_at (the cached client's version) stays. */
export async function recordEmailIntegrationError(db: Executor, id: string, error: string): Promise<void> {
  await db
    .updateTable('email_integrations')
    .set({ last_error: error, last_error_at: sql<Date>`now()` })
    .where('id', '=', id)
    .execute();
}

export function listEmailIntegrations(
  db: Executor,
  page: PageParams,
  filters: { organizationId: string | undefined; provider: EmailProvider | undefined },
): Promise<PageResult<EmailIntegrationRow>> {
  let query = db.selectFrom('email_integrations').selectAll();
  if (filters.organizationId !== undefined)
    query = query.where('organization_id', '=', filters.organizationId);
  if (filters.provider !== undefined) query = query.where('provider', '=', filters.provider);
  return paginate(query, {
    page,
    filters,
    sortColumn: 'email_integrations.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'email_integrations.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}
