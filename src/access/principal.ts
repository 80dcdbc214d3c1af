import { ApiError } from '../lib/errors.ts';
import type { Permission, RoleName } from './permissions.ts';

/** Who is calling: resolved once per request from an access token or an API key. */
export interface Principal {
  readonly userId: string;
  readonly email: string;
  readonly organizationId: string;
  readonly role: RoleName;
  readonly permissions: ReadonlySet<Permission>;
  readonly via: 'access_token' | 'api_key';
  readonly apiKeyId: string | undefined;
  readonly mfaEnabled: boolean;
  readonly organizationMfaRequired: boolean;
}

export function isPlatformAdmin(principal: Principal): boolean {
  return principal.permissions.has('platform:admin');
}

export function hasPermission(principal: Principal, permission: Permission): boolean {
  return principal.permissions.has(permission);
}

/**
 * A resource of another organization answers NOT_FOUND, never FORBIDDEN, so its existence is
 * not revealed (docs/api.md#authentication-and-roles).
 */
export function assertOrganizationAccess(principal: Principal, organizationId: string, what: string): void {
  if (!isPlatformAdmin(principal) && principal.organizationId !== organizationId) {
    throw new ApiError('NOT_FOUND', `${what} not found`);
  }
}

export function requirePermission(principal: Principal, permission: Permission, detail: string): void {
  if (!principal.permissions.has(permission)) throw new ApiError('FORBIDDEN', detail);
}
