import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { EditItemBody, Item, ItemParams } from '../items.schemas.ts';
import { editItem, toItem } from '../items.service.ts';

export const editItemRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/items/:item_id',
    {
      config: { access: needs('items:write') },
      schema: {
        operationId: 'editItem',
        tags: ['Items'],
        summary: 'Update an item: attributes (replaced whole), item type, royalty info',
        description:
          "attributes replace every existing attribute and must validate against the (new) item type's json_schema (422 SCHEMA_VALIDATION_FAILED). Once the item is minted or minting, attribute changes are refused with 409 ITEM_ALREADY_MINTED unless its collection has editable_metadata; the item type and royalty info may still change. Absent fields stay as they are; null removes the item type or the royalty info.",
        params: ItemParams,
        body: EditItemBody,
        response: { 200: Type.Ref(Item), ...errorResponses(409, 422) },
      },
    },
    async (request) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) => editItem(tx, principalOf(request), request.params.item_id, request.body));
      return toItem(row);
    },
  );
