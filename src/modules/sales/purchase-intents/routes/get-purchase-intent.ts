import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { PurchaseIntent, PurchaseIntentParams } from '../purchase-intents.schemas.ts';
import { getPurchaseIntent } from '../purchase-intents.service.ts';

export const getPurchaseIntentRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/purchase-intents/:purchase_intent_id',
    {
      config: { access: needs('purchase_intents:read') },
      schema: {
        operationId: 'getPurchaseIntent',
        tags: ['Purchase intents'],
        summary: 'Get a purchase intent',
        params: PurchaseIntentParams,
        response: { 200: Type.Ref(PurchaseIntent), ...errorResponses(404) },
      },
    },
    async (request) => getPurchaseIntent(ctx.db, principalOf(request), request.params.purchase_intent_id),
  );
