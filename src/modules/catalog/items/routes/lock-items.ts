import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { lockItems } from '../item-lock.service.ts';
import { LockItemsBody, LockItemsResponse } from '../items.schemas.ts';

export const lockItemsRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/items/lock',
    {
      config: { access: needs('items:write') },
      schema: {
        operationId: 'lockItems',
        tags: ['Items'],
        summary: 'Lock items: fix their max_supply and token id, making them mintable',
        description: [
          'Lock rules, all or nothing:',
          '1. Exactly one of item_id, item_ids (one collection) or collection_id (every item not locked yet; none left gives an empty lock_outputs); otherwise 400 INVALID_SELECTION.',
          '2. Named items must all be unlocked (409 ITEM_ALREADY_LOCKED, nothing locked); unknown items are 404.',
          '3. max_supply: ERC721 always 1 (another value is a 400); ERC1155 above 0, by default 2^256-1.',
          "4. token_id only with item_id, and only (and then required) when the collection assigns token ids MANUAL; it must be free in the collection (409 ALREADY_EXISTS). AUTOMATIC ids come from the collection's counter: unique, increasing, in creation order within a request, without gaps. EXTERNAL ids stay null until mint.",
          'The collection needs a deployment (token type and assignment known), else 409 INVALID_STATE.',
        ].join('\n'),
        body: LockItemsBody,
        response: { 201: LockItemsResponse, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const outputs = await ctx.db
        .transaction()
        .execute((tx) => lockItems(tx, principalOf(request), request.body));
      return reply.code(201).send({ lock_outputs: outputs });
    },
  );
