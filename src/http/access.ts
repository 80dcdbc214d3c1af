import type { FastifyRequest } from 'fastify';
import { type Access, CLIENT_TOKEN_HEADER, PUBLIC } from '../access/access.ts';
import type { Principal } from '../access/principal.ts';
import { ApiError } from '../lib/errors.ts';

/** Resolves a credential (access token or API key) to its user, or undefined when it is not valid. */
export type Authenticate = (credential: string) => Promise<Principal | undefined>;

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

/** The purchase intent's client_token of a `client_token` route (the hook checked it is there). */
export function clientTokenOf(request: FastifyRequest): string {
  const token = request.headers[CLIENT_TOKEN_HEADER];
  if (typeof token !== 'string' || token.length === 0)
    throw new Error(`route ${request.url} read a client token but declares no client_token access`);
  return token;
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

/**
 * The onRequest check of every /v1 route: who calls, and may they. Credentials are resolved by
 * `authenticate`, which the app passes in (the auth module's), so this layer knows no module.
 */
export async function authorize(authenticate: Authenticate, request: FastifyRequest): Promise<void> {
  const access = request.routeOptions.config.access ?? PUBLIC;
  switch (access.kind) {
    case 'public':
      return;
    case 'claim_token':
      // The token is the route's own path parameter; its service checks it against the claim.
      return;
    case 'provider':
      // Served by the webhooks scope, which never runs this hook: fail closed if one gets here.
      throw new ApiError('UNAUTHENTICATED', 'provider events are accepted at /v1/webhooks only');
    case 'client_token': {
      const token = request.headers[CLIENT_TOKEN_HEADER];
      if (typeof token !== 'string' || token.length === 0)
        throw new ApiError(
          'UNAUTHENTICATED',
          'the X-Client-Token header (the client_token of the intent) is required',
        );
      return;
    }
    case 'user':
    case 'permission': {
      const credential = credentialOf(request);
      if (credential === undefined) throw new ApiError('UNAUTHENTICATED', 'credentials are required');
      const principal = await authenticate(credential);
      if (!principal)
        throw new ApiError('UNAUTHENTICATED', 'the credentials are invalid, expired or revoked');
      request.principal = principal;
      // docs/api.md#authentication-and-roles: an organization that requires MFA locks its users
      // without MFA out of all but /v1/me*.
      const path = request.routeOptions.url ?? '';
      if (principal.organizationMfaRequired && !principal.mfaEnabled && !/^\/v1\/me(\/|$)/.test(path)) {
        throw new ApiError('MFA_REQUIRED', 'this organization requires MFA: enrol at POST /v1/me/mfa');
      }
      if (access.kind === 'permission' && !principal.permissions.has(access.permission)) {
        throw new ApiError('FORBIDDEN', `this operation needs the ${access.permission} permission`);
      }
    }
  }
}
