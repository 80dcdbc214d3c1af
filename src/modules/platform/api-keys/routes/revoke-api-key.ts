import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ApiKeyParams } from '../api-keys.schemas.ts';
import { revokeApiKey } from '../api-keys.service.ts';

export const revokeApiKeyRoute: RouteModule = (app, ctx) =>
  app.delete(
    '/v1/api-keys/:api_key_id',
    {
      config: { access: needs('api_keys:write') },
      schema: {
        operationId: 'revokeApiKey',
        tags: ['API keys'],
        summary: 'Revoke an API key (the owner, or an admin of its organization)',
        params: ApiKeyParams,
        response: { 204: Type.Null({ description: 'Revoked' }) },
      },
    },
    async (request, reply) => {
      await revokeApiKey(ctx.db, principalOf(request), request.params.api_key_id);
      return reply.code(204).send(null);
    },
  );
