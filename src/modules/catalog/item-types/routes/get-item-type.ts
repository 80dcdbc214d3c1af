import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ItemType, ItemTypeParams } from '../item-types.schemas.ts';
import { getItemType, toItemType } from '../item-types.service.ts';

export const getItemTypeRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/item-types/:item_type_id',
    {
      config: { access: needs('item_types:read') },
      schema: {
        operationId: 'getItemType',
        tags: ['Item types'],
        summary: 'Get an item type',
        params: ItemTypeParams,
        response: { 200: Type.Ref(ItemType) },
      },
    },
    async (request) =>
      toItemType(await getItemType(ctx.db, principalOf(request), request.params.item_type_id)),
  );
