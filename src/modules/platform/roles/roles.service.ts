import { listedPermissions, type Permission, roleNameOf } from '../../../access/permissions.ts';
import type { Executor } from '../../../db/executor.ts';
import type { PageParams } from '../../../http/pagination.ts';
import { paginate } from '../../../http/pagination.ts';

/** Roles with the permissions they are listed with (`inUse`: see listedPermissions). */
export async function listRoles(db: Executor, page: PageParams, inUse: ReadonlySet<Permission>) {
  const result = await paginate(db.selectFrom('roles').selectAll(), {
    page,
    filters: {},
    sortColumn: 'roles.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'roles.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
  return {
    ...result,
    results: result.results.map((r) => ({
      id: r.id,
      name: r.name,
      description: r.description,
      permissions: listedPermissions(roleNameOf(r.id), inUse),
    })),
  };
}
