import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, page } from '../../../http/openapi-story.ts';

/** ORG_ADMIN's permissions, also those of the admin's API key and of /v1/me. */
export const PERMISSIONS_OF_ORG_ADMIN = [
  'collections:read',
  'collections:write',
  'items:read',
  'items:write',
  'item_types:read',
  'item_types:write',
  'mint_requests:read',
  'mint_requests:write',
  'transfer_requests:read',
  'transfer_requests:write',
  'email_claims:read',
  'email_claims:write',
  'email_integrations:read',
  'email_integrations:write',
  'email_templates:read',
  'email_templates:write',
  'marketing_campaigns:read',
  'marketing_campaigns:write',
  'organizations:read',
  'organizations:write',
  'users:read',
  'users:write',
  'api_keys:read',
  'api_keys:write',
  'networks:read',
  'transactions:read',
];

/** The two roles the first migration seeds. */
export const rolesExamples: Readonly<Record<string, OperationExample>> = {
  listRoles: {
    response: page([
      {
        id: ids.orgAdminRole,
        name: 'ORG_ADMIN',
        description: 'Everything in its organization',
        permissions: PERMISSIONS_OF_ORG_ADMIN,
      },
      {
        id: ids.orgMemberRole,
        name: 'ORG_MEMBER',
        description: 'Read-only in its organization, plus its own API keys',
        permissions: [...PERMISSIONS_OF_ORG_ADMIN.filter((p) => p.endsWith(':read')), 'api_keys:write'],
      },
    ]),
  },
};
