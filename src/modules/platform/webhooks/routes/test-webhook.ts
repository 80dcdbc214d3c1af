import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { WebhookDelivery, WebhookParams } from '../webhooks.schemas.ts';
import { sendTestEvent, toWebhookDelivery } from '../webhooks.service.ts';

export const testWebhookRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/webhooks/:webhook_id/test',
    {
      config: { access: needs('webhooks:write') },
      schema: {
        operationId: 'testWebhook',
        tags: ['Webhooks'],
        summary: 'Send a webhook.test event to this endpoint (subscribed or not); answers its delivery',
        params: WebhookParams,
        response: { 201: Type.Ref(WebhookDelivery) },
      },
    },
    async (request, reply) => {
      const delivery = await ctx.db
        .transaction()
        .execute((tx) => sendTestEvent(tx, principalOf(request), request.params.webhook_id));
      return reply.code(201).send(toWebhookDelivery(delivery));
    },
  );
