import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { WebhookParams } from '../webhooks.schemas.ts';
import { deleteWebhook } from '../webhooks.service.ts';

export const deleteWebhookRoute: RouteModule = (app, ctx) =>
  app.delete(
    '/v1/webhooks/:webhook_id',
    {
      config: { access: needs('webhooks:write') },
      schema: {
        operationId: 'deleteWebhook',
        tags: ['Webhooks'],
        summary: 'Delete a webhook endpoint and its delivery log; nothing more is sent to it',
        params: WebhookParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      await ctx.db
        .transaction()
        .execute((tx) => deleteWebhook(tx, principalOf(request), request.params.webhook_id));
      return reply.code(204).send(null);
    },
  );
