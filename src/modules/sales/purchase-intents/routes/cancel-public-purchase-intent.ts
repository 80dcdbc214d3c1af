import { Type } from '@sinclair/typebox';
import { CLIENT_TOKEN } from '../../../../access/access.ts';
import { clientTokenOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { PurchaseIntentParams } from '../purchase-intents.schemas.ts';
import { cancelPublicPurchaseIntent } from '../purchase-intents.service.ts';

export const cancelPublicPurchaseIntentRoute: RouteModule = (app, ctx) =>
  app.delete(
    '/v1/public/purchase-intents/:purchase_intent_id',
    {
      config: { access: CLIENT_TOKEN },
      schema: {
        operationId: 'cancelPublicPurchaseIntent',
        tags: ['Public'],
        summary: 'The buyer cancels its pending purchase intent',
        description:
          'Needs X-Client-Token. Only a PENDING intent (else 409 INVALID_STATE); its units return to the listing.',
        params: PurchaseIntentParams,
        response: { 204: Type.Null({ description: 'Cancelled' }), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      await ctx.db
        .transaction()
        .execute((tx) =>
          cancelPublicPurchaseIntent(tx, request.params.purchase_intent_id, clientTokenOf(request)),
        );
      return reply.code(204).send(null);
    },
  );
