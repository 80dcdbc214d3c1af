import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListWebhooksQuery, Webhook } from '../webhooks.schemas.ts';
import { listWebhooks, toWebhook } from '../webhooks.service.ts';

export const listWebhooksRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/webhooks',
    {
      config: { access: needs('webhooks:read') },
      schema: {
        operationId: 'listWebhooks',
        tags: ['Webhooks'],
        summary: "List the organization's webhook endpoints (never their secrets)",
        querystring: ListWebhooksQuery,
        response: { 200: Page(Type.Ref(Webhook), 'WebhookPage') },
      },
    },
    async (request) => {
      const page = await listWebhooks(ctx.db, principalOf(request), request.query);
      return { ...page, results: page.results.map(toWebhook) };
    },
  );
