import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { Webhook, WebhookParams } from '../webhooks.schemas.ts';
import { getWebhook, toWebhook } from '../webhooks.service.ts';

export const getWebhookRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/webhooks/:webhook_id',
    {
      config: { access: needs('webhooks:read') },
      schema: {
        operationId: 'getWebhook',
        tags: ['Webhooks'],
        summary: 'Get a webhook endpoint, with why the service disabled it if it did',
        params: WebhookParams,
        response: { 200: Type.Ref(Webhook) },
      },
    },
    async (request) => toWebhook(await getWebhook(ctx.db, principalOf(request), request.params.webhook_id)),
  );
