import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { Item, ItemParams } from '../items.schemas.ts';
import { getItem, toItem } from '../items.service.ts';

export const getItemRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/items/:item_id',
    {
      config: { access: needs('items:read') },
      schema: {
        operationId: 'getItem',
        tags: ['Items'],
        summary: 'Get an item',
        params: ItemParams,
        response: { 200: Type.Ref(Item) },
      },
    },
    async (request) => toItem(await getItem(ctx.db, principalOf(request), request.params.item_id)),
  );
