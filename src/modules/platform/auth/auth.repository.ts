import type { InferResult } from 'kysely';
import type { Executor } from '../../../db/executor.ts';
import { hotQuery } from '../../../db/prepared.ts';

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

/** GET /v1/me's query: the user and its organization, the columns they are shown with. */
function meQuery(db: Executor, userId: string) {
  return db
    .selectFrom('users')
    .innerJoin('organizations', 'organizations.id', 'users.organization_id')
    .select([
      'users.id',
      'users.email',
      'users.active',
      'users.last_seen',
      'users.organization_id',
      'users.role_id',
      'users.mfa_enabled',
      'users.created_at',
      'organizations.name as org_name',
      'organizations.is_enabled as org_is_enabled',
      'organizations.mfa_required as org_mfa_required',
      'organizations.network_ids as org_network_ids',
      'organizations.card_provider_connect_types as org_card_provider_connect_types',
      'organizations.identity_provider_id as org_identity_provider_id',
      'organizations.auto_fund as org_auto_fund',
      'organizations.domain as org_domain',
      'organizations.hardware_wallet as org_hardware_wallet',
      'organizations.payout_address as org_payout_address',
      'organizations.platform_sale_fee as org_platform_sale_fee',
      'organizations.created_at as org_created_at',
    ])
    .where('users.id', '=', userId);
}

type MeRow = InferResult<ReturnType<typeof meQuery>>[number];
const me = hotQuery(meQuery);

/**
 * GET /v1/me in one query. Its SQL is built once (building its twenty columns with Kysely cost
 * about 40 µs a call, a tenth of the request) and prepared.
 */
export async function findMe(db: Executor, userId: string): Promise<MeRow | undefined> {
  return (await me(db, userId))[0];
}
