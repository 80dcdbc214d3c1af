import type { Executor } from '../../db/database.ts';

/** What a principal is made of: the user and its organization's switches. */
const PRINCIPAL_COLUMNS = [
  'users.id as user_id',
  'users.email',
  'users.active',
  'users.role_id',
  'users.mfa_enabled',
  'users.organization_id',
  'organizations.is_enabled',
  'organizations.mfa_required',
] as const;

/**
 * What authenticating a request reads: a credential with its user and organization, in one
 * query (the hot path of every authenticated request).
 */

export function findApiKeyCredential(db: Executor, keyHash: Buffer) {
  return db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .innerJoin('organizations', 'organizations.id', 'users.organization_id')
    .select([
      'api_keys.id as api_key_id',
      'api_keys.expiration',
      'api_keys.revoked_at',
      'api_keys.last_used',
      ...PRINCIPAL_COLUMNS,
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

export function findSessionCredential(db: Executor, userId: string) {
  return db
    .selectFrom('users')
    .innerJoin('organizations', 'organizations.id', 'users.organization_id')
    .select([...PRINCIPAL_COLUMNS, 'users.session_version', 'users.last_seen'])
    .where('users.id', '=', userId)
    .executeTakeFirst();
}

export async function touchApiKeyLastUsed(db: Executor, apiKeyId: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used: new Date() }).where('id', '=', apiKeyId).execute();
}
