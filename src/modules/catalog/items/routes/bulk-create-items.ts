import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { BulkCreateItemsBody, BulkCreateItemsResponse, MAX_BULK_ITEMS } from '../items.schemas.ts';
import { bulkCreateItems } from '../items.service.ts';

/** 10,000 items with modest attributes (about a kilobyte each) fit with room to spare. */
const BULK_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

export const bulkCreateItemsRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/items/bulk',
    {
      config: { access: needs('items:write') },
      bodyLimit: BULK_BODY_LIMIT_BYTES,
      schema: {
        operationId: 'bulkCreateItems',
        tags: ['Items'],
        summary: `Create up to ${MAX_BULK_ITEMS.toLocaleString('en')} items, all or nothing`,
        description: `Each element is a createItem body and follows its rules; any failure creates nothing, and its fields name the element (/items/3/attributes/name). More than ${MAX_BULK_ITEMS} items, or a body above 16 MiB, is a 400. item_ids are in the order of the request, which is also the items' creation order.`,
        body: BulkCreateItemsBody,
        response: { 201: BulkCreateItemsResponse, ...errorResponses(404, 422) },
      },
    },
    async (request, reply) => {
      const ids = await ctx.db
        .transaction()
        .execute((tx) => bulkCreateItems(tx, principalOf(request), request.body));
      return reply.code(201).send({ item_ids: ids });
    },
  );
