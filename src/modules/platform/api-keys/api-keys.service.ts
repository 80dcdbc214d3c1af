import { listedPermissions, type Permission, ROLE_IDS } from '../../../access/permissions.ts';
import {
  assertOrganizationAccess,
  hasPermission,
  isPlatformAdmin,
  type Principal,
} from '../../../access/principal.ts';
import type { Executor } from '../../../db/executor.ts';
import type { ApiKeyRow } from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { randomToken, uuidv7 } from '../../../lib/ids.ts';
import { sha256 } from '../../../lib/secrets.ts';
import * as repo from './api-keys.repository.ts';
import type { ApiKey, CreateApiKeyBody, CreatedApiKey } from './api-keys.schemas.ts';

/** What every API key begins with: a credential that does is looked up as a key, not a token. */
export const API_KEY_PREFIX = 'tis_';

/**
 * A key acts with its user's role, so its permissions are the role's (as listed: `inUse`, see
 * listedPermissions).
 */
export function toApiKey(row: ApiKeyRow, principal: Principal, inUse: ReadonlySet<Permission>): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    expiration: iso(row.expiration),
    last_used: iso(row.last_used),
    permissions: listedPermissions(principal.role, inUse),
    created_at: iso(row.created_at),
  };
}

export async function createApiKey(
  db: Executor,
  principal: Principal,
  body: CreateApiKeyBody,
  inUse: ReadonlySet<Permission>,
): Promise<CreatedApiKey> {
  const expiration = body.expiration ? new Date(body.expiration) : null;
  if (expiration !== null && expiration.getTime() <= Date.now()) {
    throw new ApiError('VALIDATION_FAILED', 'expiration must be in the future', {
      fields: [{ path: '/expiration', message: 'must be in the future' }],
    });
  }
  // The key is shown once; only its digest is stored.
  const key = `${API_KEY_PREFIX}${randomToken(32)}`;
  const row = await repo.insertApiKey(db, {
    id: uuidv7(),
    userId: principal.userId,
    name: body.name,
    prefix: key.slice(0, API_KEY_PREFIX.length + 8),
    hash: sha256(key),
    expiration,
  });
  return { ...toApiKey(row, principal, inUse), key };
}

export function listApiKeys(
  db: Executor,
  principal: Principal,
  page: PageParams,
): Promise<PageResult<ApiKeyRow>> {
  return repo.listApiKeysOfUser(db, principal.userId, page);
}

/**
 * The owner revokes its own keys; an admin of the owner's organization may revoke the others,
 * except a platform admin's, as it may not edit a platform admin either.
 */
export async function revokeApiKey(db: Executor, principal: Principal, id: string): Promise<void> {
  const key = await repo.findApiKey(db, id);
  if (!key) throw new ApiError('NOT_FOUND', 'API key not found');
  if (key.user_id !== principal.userId) {
    assertOrganizationAccess(principal, key.organization_id, 'API key');
    if (!hasPermission(principal, 'users:write')) throw new ApiError('NOT_FOUND', 'API key not found');
    if (key.owner_role_id === ROLE_IDS.PLATFORM_ADMIN && !isPlatformAdmin(principal)) {
      throw new ApiError('FORBIDDEN', "only a platform admin may revoke a platform admin's API key");
    }
  }
  await repo.revokeApiKey(db, id);
}

/** Ends every key of the user (deactivation: reactivation needs new keys). */
export function revokeApiKeysOfUser(db: Executor, userId: string): Promise<void> {
  return repo.revokeApiKeysOfUser(db, userId);
}
