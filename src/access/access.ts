import type { Permission } from './permissions.ts';

/**
 * What a route requires of its caller, declared by every /v1 route in `config.access` and
 * checked before the body is read:
 * - public: anyone, no credentials (log in, metadata, the buyer's listing view…);
 * - user: any authenticated user (own password, MFA, API keys, /v1/me);
 * - permission: an authenticated user whose role grants the permission;
 * - client_token: a buyer holding a purchase intent's `client_token` (header X-Client-Token),
 *   which the route's service checks against the intent it names;
 * - claim_token: the holder of an email claim's link (the route's `claim_token` path parameter),
 *   checked by the service against the claim's stored digest;
 * - provider: a payment provider's event (webhooks scope only), whose handler verifies the
 *   provider's signature on the raw body.
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'user' }
  | { kind: 'permission'; permission: Permission }
  | { kind: 'client_token' }
  | { kind: 'claim_token' }
  | { kind: 'provider' };

export const PUBLIC: Access = { kind: 'public' };
export const ANY_USER: Access = { kind: 'user' };
export const CLIENT_TOKEN: Access = { kind: 'client_token' };
export const CLAIM_TOKEN: Access = { kind: 'claim_token' };
export const PROVIDER_SIGNED: Access = { kind: 'provider' };
export function needs(permission: Permission): Access {
  return { kind: 'permission', permission };
}

/** The header a buyer sends its purchase intent's client_token in. */
export const CLIENT_TOKEN_HEADER = 'x-client-token';
