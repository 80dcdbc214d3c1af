import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListPurchaseIntentsQuery, PurchaseIntent } from '../purchase-intents.schemas.ts';
import { listPurchaseIntents } from '../purchase-intents.service.ts';

export const listPurchaseIntentsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/purchase-intents',
    {
      config: { access: needs('purchase_intents:read') },
      schema: {
        operationId: 'listPurchaseIntents',
        tags: ['Purchase intents'],
        summary: "List the organization's purchase intents",
        description:
          'Filters: item_id, collection_id, listing_id, email (any case), eth_address; status, fulfillment_status, fulfillment_method and payment_provider as repeated parameters. Creation order.',
        querystring: ListPurchaseIntentsQuery,
        response: { 200: Page(Type.Ref(PurchaseIntent), 'PurchaseIntentPage') },
      },
    },
    async (request) => listPurchaseIntents(ctx.db, principalOf(request), request.query),
  );
