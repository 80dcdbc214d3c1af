import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { DeliveryParams, WebhookDelivery } from '../webhooks.schemas.ts';
import { retryWebhookDelivery, toWebhookDelivery } from '../webhooks.service.ts';

export const retryWebhookDeliveryRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/webhooks/:webhook_id/deliveries/:delivery_id/retry',
    {
      config: { access: needs('webhooks:write') },
      schema: {
        operationId: 'retryWebhookDelivery',
        tags: ['Webhooks'],
        summary: 'Send a delivery again now, with the same webhook-id',
        description:
          'A SUCCEEDED or FAILED delivery gets one more attempt; a PENDING one is made due now; one being sent answers 409 INVALID_STATE.',
        params: DeliveryParams,
        response: { 200: Type.Ref(WebhookDelivery) },
      },
    },
    async (request) =>
      toWebhookDelivery(
        await ctx.db
          .transaction()
          .execute((tx) =>
            retryWebhookDelivery(
              tx,
              principalOf(request),
              request.params.webhook_id,
              request.params.delivery_id,
            ),
          ),
      ),
  );
