import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { WebhookParams, WebhookWithSecret } from '../webhooks.schemas.ts';
import { rotateWebhookSecret } from '../webhooks.service.ts';

export const rotateWebhookSecretRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/webhooks/:webhook_id/rotate-secret',
    {
      config: { access: needs('webhooks:write') },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: ['Webhooks'],
        summary: 'Replace the signing secret; the new one is shown once',
        description:
          'For 24 hours after a rotation, deliveries carry two signatures in webhook-signature (space-separated `v1,<signature>` entries): by the new secret and by the previous one, so a receiver can switch without losing events.',
        params: WebhookParams,
        response: { 200: WebhookWithSecret },
      },
    },
    async (request) =>
      ctx.db
        .transaction()
        .execute((tx) => rotateWebhookSecret(tx, ctx, principalOf(request), request.params.webhook_id)),
  );
