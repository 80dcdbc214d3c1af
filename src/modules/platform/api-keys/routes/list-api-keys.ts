import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import { permissionsInUse } from '../../../../http/route-table.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ApiKey, ListApiKeysQuery } from '../api-keys.schemas.ts';
import { listApiKeys, toApiKey } from '../api-keys.service.ts';

export const listApiKeysRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/api-keys',
    {
      config: { access: needs('api_keys:read') },
      schema: {
        operationId: 'listApiKeys',
        tags: ['API keys'],
        summary: 'List the current user API keys (not revoked)',
        querystring: ListApiKeysQuery,
        response: { 200: Page(Type.Ref(ApiKey), 'ApiKeyPage') },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const page = await listApiKeys(ctx.db, principal, request.query);
      const inUse = permissionsInUse(app);
      return { ...page, results: page.results.map((row) => toApiKey(row, principal, inUse)) };
    },
  );
