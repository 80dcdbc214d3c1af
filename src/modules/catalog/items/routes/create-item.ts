import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { CreateItemBody, Item } from '../items.schemas.ts';
import { createItem, toItem } from '../items.service.ts';

export const createItemRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/items',
    {
      config: { access: needs('items:write') },
      schema: {
        operationId: 'createItem',
        tags: ['Items'],
        summary: 'Create an item in a collection',
        description:
          "item_type_id defaults to the collection's default_item_type_id; it must be an item type of the collection's organization (400 VALIDATION_FAILED /item_type_id). With an item type, attributes must validate against its json_schema (422 SCHEMA_VALIDATION_FAILED, fields under /attributes).",
        body: CreateItemBody,
        response: { 201: Type.Ref(Item), ...errorResponses(404, 422) },
      },
    },
    async (request, reply) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) => createItem(tx, principalOf(request), request.body));
      return reply.code(201).send(toItem(row));
    },
  );
