import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { authenticate } from '../modules/auth/auth.service.ts';
import type { Principal } from '../modules/auth/principal.ts';
import type { Permission } from '../modules/roles/permissions.ts';
import { ApiError } from './errors.ts';

/**
 * What a route requires, declared by every /v1 route in `config.access`:
 * - public: no credentials;
 * - user: any authenticated user (own password, MFA, API keys, /v1/me);
 * - a permission string, checked against the caller's role;
 * - provider: no credentials, a provider's webhook (webhooks scope only), whose handler verifies
 *   the provider's signature on the raw body. This hook never serves it: it would ask for
 *   credentials.
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'user' }
  | { kind: 'permission'; permission: Permission }
  | { kind: 'provider' };

export const PUBLIC: Access = { kind: 'public' };
export const PROVIDER_SIGNED: Access = { kind: 'provider' };
export const ANY_USER: Access = { kind: 'user' };
export function needs(permission: Permission): Access {
  return { kind: 'permission', permission };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The caller of an authenticated route (the auth hook has already run). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal)
    throw new Error(`route ${request.url} read a principal but declares no authentication`);
  return request.principal;
}

function credentialOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new ApiError('UNAUTHENTICATED', 'the Authorization header must be "Bearer <token>"');
    return match[1];
  }
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey.length > 0 ? apiKey : undefined;
}

/** The onRequest check of every route: who calls, and may they. */
export async function authorize(ctx: AppContext, request: FastifyRequest): Promise<void> {
  const access = request.routeOptions.config.access ?? PUBLIC;
  if (access.kind === 'public') return;
  const credential = credentialOf(request);
  if (credential === undefined) throw new ApiError('UNAUTHENTICATED', 'credentials are required');
  const principal = await authenticate(ctx, credential);
  if (!principal) throw new ApiError('UNAUTHENTICATED', 'the credentials are invalid, expired or revoked');
  request.principal = principal;
  // API.md §2: an organization that requires MFA locks its users without MFA out of all but /v1/me*.
  const path = request.routeOptions.url ?? '';
  if (principal.organizationMfaRequired && !principal.mfaEnabled && !/^\/v1\/me(\/|$)/.test(path)) {
    throw new ApiError('MFA_REQUIRED', 'this organization requires MFA: enrol at POST /v1/me/mfa');
  }
  if (access.kind === 'permission' && !principal.permissions.has(access.permission)) {
    throw new ApiError('FORBIDDEN', `this operation needs the ${access.permission} permission`);
  }
}
