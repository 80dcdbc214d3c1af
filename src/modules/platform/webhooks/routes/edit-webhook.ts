import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EditWebhookBody, Webhook, WebhookParams } from '../webhooks.schemas.ts';
import { editWebhook, toWebhook } from '../webhooks.service.ts';

export const editWebhookRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/webhooks/:webhook_id',
    {
      config: { access: needs('webhooks:write') },
      schema: {
        operationId: 'editWebhook',
        tags: ['Webhooks'],
        summary: 'Change the url, events or enabled of a webhook endpoint',
        description:
          'Only the fields present change. Enabling an endpoint the service disabled clears disabled_reason and disabled_at.',
        params: WebhookParams,
        body: EditWebhookBody,
        response: { 200: Type.Ref(Webhook) },
      },
    },
    // No transaction: a new url is resolved before the one update.
    async (request) =>
      toWebhook(
        await editWebhook(ctx.db, ctx, principalOf(request), request.params.webhook_id, request.body),
      ),
  );
