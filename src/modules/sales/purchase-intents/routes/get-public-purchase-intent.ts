import { CLIENT_TOKEN } from '../../../../access/access.ts';
import { clientTokenOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { PublicPurchaseIntent, PurchaseIntentParams } from '../purchase-intents.schemas.ts';
import { getPublicPurchaseIntent } from '../purchase-intents.service.ts';

export const getPublicPurchaseIntentRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/public/purchase-intents/:purchase_intent_id',
    {
      config: { access: CLIENT_TOKEN },
      schema: {
        operationId: 'getPublicPurchaseIntent',
        tags: ['Public'],
        summary: "The buyer's view of its purchase intent",
        description:
          'Needs the client_token returned at creation in X-Client-Token; a wrong token answers 404.',
        params: PurchaseIntentParams,
        response: { 200: PublicPurchaseIntent, ...errorResponses(404) },
      },
    },
    async (request) =>
      getPublicPurchaseIntent(ctx.db, request.params.purchase_intent_id, clientTokenOf(request)),
  );
