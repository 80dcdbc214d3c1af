import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { ItemParams } from '../items.schemas.ts';
import { deleteItem } from '../items.service.ts';

export const deleteItemRoute: RouteModule = (app, ctx) =>
  app.delete(
    '/v1/items/:item_id',
    {
      config: { access: needs('items:write') },
      schema: {
        operationId: 'deleteItem',
        tags: ['Items'],
        summary: 'Delete an item that was never minted',
        description:
          'A minted (or minting) item is 409 ITEM_ALREADY_MINTED; an item held by a mint, transfer, listing or email claim is 409 ITEM_RESERVED; an item that requests or listings refer to is 409 INVALID_STATE.',
        params: ItemParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      await ctx.db
        .transaction()
        .execute((tx) => deleteItem(tx, principalOf(request), request.params.item_id));
      return reply.code(204).send(null);
    },
  );
