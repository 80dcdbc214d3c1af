import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { CreateWebhookBody, WebhookWithSecret } from '../webhooks.schemas.ts';
import { createWebhook } from '../webhooks.service.ts';

export const createWebhookRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/webhooks',
    {
      config: { access: needs('webhooks:write') },
      schema: {
        operationId: 'createWebhook',
        tags: ['Webhooks'],
        summary: 'Register a webhook endpoint; its signing secret is shown once',
        description:
          'Deliveries are POSTs of `{type, timestamp, data}` signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). `events` are event types the service emits (400 otherwise). The url must use https (http only where private URLs are allowed) and must not resolve to a private, loopback or link-local address (400), unless WEBHOOK_ALLOW_PRIVATE_URLS is on.',
        body: CreateWebhookBody,
        response: { 201: WebhookWithSecret },
      },
    },
    // No transaction: the url is resolved first, and then one statement writes the row.
    async (request, reply) =>
      reply.code(201).send(await createWebhook(ctx.db, ctx, principalOf(request), request.body)),
  );
