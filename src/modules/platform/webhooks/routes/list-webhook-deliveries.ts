import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListDeliveriesQuery, WebhookDelivery, WebhookParams } from '../webhooks.schemas.ts';
import { listWebhookDeliveries, toWebhookDelivery } from '../webhooks.service.ts';

export const listWebhookDeliveriesRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/webhooks/:webhook_id/deliveries',
    {
      config: { access: needs('webhooks:read') },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['Webhooks'],
        summary: "The endpoint's delivery log (kept 30 days), filtered by status and event_type",
        params: WebhookParams,
        querystring: ListDeliveriesQuery,
        response: { 200: Page(Type.Ref(WebhookDelivery), 'WebhookDeliveryPage') },
      },
    },
    async (request) => {
      const { status, event_type, ...page } = request.query;
      const result = await listWebhookDeliveries(
        ctx.db,
        principalOf(request),
        request.params.webhook_id,
        page,
        {
          status,
          event_type,
        },
      );
      return { ...result, results: result.results.map(toWebhookDelivery) };
    },
  );
