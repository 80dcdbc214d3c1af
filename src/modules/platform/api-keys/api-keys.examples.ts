import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, page } from '../../../http/openapi-story.ts';
import { PERMISSIONS_OF_ORG_ADMIN } from '../roles/roles.examples.ts';

const apiKey = {
  id: ids.apiKey,
  name: 'drop script',
  prefix: 'tis_5kQ2',
  expiration: '2027-05-20T00:00:00.000Z',
  last_used: '2026-11-23T09:40:58.771Z',
  permissions: PERMISSIONS_OF_ORG_ADMIN,
  created_at: '2026-11-20T21:37:36.241Z',
};

/** An API key of the admin's, shown once at creation. */
export const apiKeysExamples: Readonly<Record<string, OperationExample>> = {
  listApiKeys: { response: page([apiKey]) },
  createApiKey: {
    request: { name: 'drop script', expiration: '2027-05-20T00:00:00.000Z' },
    response: {
      ...apiKey,
      last_used: null,
      key: 'tis_5kQ2vN8rT1yW4zB7cE0gH3jL6mP9sU2xA5dF8iK1oR4',
    },
  },
  revokeApiKey: { params: { api_key_id: ids.apiKey } },
};
