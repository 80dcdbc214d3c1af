import type { Executor, Tx } from '../../../db/executor.ts';
import type { NewOrganization, OrganizationRow, OrganizationUpdate } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export function findOrganization(db: Executor, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findOrganizationForUpdate(db: Tx, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function insertOrganization(db: Executor, row: NewOrganization): Promise<OrganizationRow> {
  return db.insertInto('organizations').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateOrganization(
  db: Executor,
  id: string,
  patch: OrganizationUpdate,
): Promise<OrganizationRow> {
  return db
    .updateTable('organizations')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** `onlyId` restricts the list to one organization (everyone but platform admins sees one). */
export function listOrganizations(
  db: Executor,
  page: PageParams,
  onlyId: string | undefined,
): Promise<PageResult<OrganizationRow>> {
  let query = db.selectFrom('organizations').selectAll();
  if (onlyId !== undefined) query = query.where('id', '=', onlyId);
  return paginate(query, {
    page,
    filters: { onlyId },
    sortColumn: 'organizations.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'organizations.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}

export function countOrganizations(db: Executor): Promise<number> {
  return db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}
