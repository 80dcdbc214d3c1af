import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { EditItemTypeBody, ItemType, ItemTypeParams } from '../item-types.schemas.ts';
import { editItemType, toItemType } from '../item-types.service.ts';

export const editItemTypeRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/item-types/:item_type_id',
    {
      config: { access: needs('item_types:write') },
      schema: {
        operationId: 'editItemType',
        tags: ['Item types'],
        summary: 'Edit an item type (name and json_schema, both required)',
        description:
          'json_schema is checked as on create (400). A different json_schema is accepted only while no item uses the type or when every item of the type validates against it; otherwise 409 INVALID_STATE names the first item (in creation order) that does not.',
        params: ItemTypeParams,
        body: EditItemTypeBody,
        response: { 200: Type.Ref(ItemType), ...errorResponses(409) },
      },
    },
    async (request) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) => editItemType(tx, principalOf(request), request.params.item_type_id, request.body));
      return toItemType(row);
    },
  );
