import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { permissionsInUse } from '../../../../http/route-table.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { CreateApiKeyBody, CreatedApiKey } from '../api-keys.schemas.ts';
import { createApiKey } from '../api-keys.service.ts';

export const createApiKeyRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/api-keys',
    {
      config: { access: needs('api_keys:write') },
      schema: {
        operationId: 'createApiKey',
        tags: ['API keys'],
        summary: 'Create an API key for the current user; the key is shown once',
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKey },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await createApiKey(ctx.db, principalOf(request), request.body, permissionsInUse(app))),
  );
