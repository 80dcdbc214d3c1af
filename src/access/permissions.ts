/**
 * Resource groups that have `<group>:read` and `<group>:write` permissions (docs/api.md,
 * "Authentication and roles"). Some are granted before their routes exist: see listedPermissions.
 */
export const RESOURCE_GROUPS = [
  'collections',
  'items',
  'item_types',
  'mint_requests',
  'transfer_requests',
  'listings',
  'purchase_intents',
  'email_claims',
  'email_integrations',
  'email_templates',
  'marketing_campaigns',
  'organizations',
  'users',
  'api_keys',
  'networks',
  'transactions',
  'webhooks',
] as const;
export type ResourceGroup = (typeof RESOURCE_GROUPS)[number];
export type Permission = `${ResourceGroup}:${'read' | 'write'}` | 'platform:admin';

export const ROLE_NAMES = ['PLATFORM_ADMIN', 'ORG_ADMIN', 'ORG_MEMBER'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

/** Fixed ids, seeded by the first migration. */
export const ROLE_IDS: Record<RoleName, string> = {
  PLATFORM_ADMIN: '0190f1c0-0000-7000-8000-000000000001',
  ORG_ADMIN: '0190f1c0-0000-7000-8000-000000000002',
  ORG_MEMBER: '0190f1c0-0000-7000-8000-000000000003',
};

const reads = RESOURCE_GROUPS.map((g) => `${g}:read` as const);
const writes = RESOURCE_GROUPS.map((g) => `${g}:write` as const);
// Networks and payment tokens are platform configuration: organizations read them only.
const orgWrites = writes.filter((p) => p !== 'networks:write');

export const ROLE_PERMISSIONS: Record<RoleName, readonly Permission[]> = {
  PLATFORM_ADMIN: [...reads, ...writes, 'platform:admin'],
  ORG_ADMIN: [...reads, ...orgWrites],
  // Read-only, plus its own API keys (its password and MFA need no permission).
  ORG_MEMBER: [...reads, 'api_keys:write'],
};

/**
 * The permissions a role is shown with (GET /v1/me, GET /v1/roles, API keys): those of its
 * permissions that guard some route of the app (`inUse`, from http/route-table.ts
 * permissionsInUse). A group whose routes do not exist yet is granted but not listed, so the list
 * never names an operation that answers 404; its permissions appear with its first route.
 */
export function listedPermissions(role: RoleName, inUse: ReadonlySet<Permission>): Permission[] {
  return ROLE_PERMISSIONS[role].filter((permission) => inUse.has(permission));
}

export function roleNameOf(roleId: string): RoleName {
  const entry = Object.entries(ROLE_IDS).find(([, id]) => id === roleId);
  if (!entry) throw new Error(`unknown role id ${roleId}`);
  return entry[0] as RoleName;
}
