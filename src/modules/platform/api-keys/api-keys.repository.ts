import type { Executor } from '../../../db/executor.ts';
import type { ApiKeyRow } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export function insertApiKey(
  db: Executor,
  key: { id: string; userId: string; name: string; prefix: string; hash: Buffer; expiration: Date | null },
): Promise<ApiKeyRow> {
  return db
    .insertInto('api_keys')
    .values({
      id: key.id,
      user_id: key.userId,
      name: key.name,
      prefix: key.prefix,
      key_hash: key.hash,
      expiration: key.expiration,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A live key with its owner's organization and role, for access checks. */
export function findApiKey(
  db: Executor,
  id: string,
): Promise<(ApiKeyRow & { organization_id: string; owner_role_id: string }) | undefined> {
  return db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .selectAll('api_keys')
    .select(['users.organization_id', 'users.role_id as owner_role_id'])
    .where('api_keys.id', '=', id)
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function revokeApiKey(db: Executor, id: string): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', id).execute();
}

/** Revokes every live key of the user (deactivation): reactivating the user does not revive them. */
export async function revokeApiKeysOfUser(db: Executor, userId: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}

export function listApiKeysOfUser(
  db: Executor,
  userId: string,
  page: PageParams,
): Promise<PageResult<ApiKeyRow>> {
  const query = db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  return paginate(query, {
    page,
    filters: { userId },
    sortColumn: 'api_keys.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'api_keys.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}
