import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { Item, ListItemsQuery } from '../items.schemas.ts';
import { listItems, toItem } from '../items.service.ts';

export const listItemsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/items',
    {
      config: { access: needs('items:read') },
      schema: {
        operationId: 'listItems',
        tags: ['Items'],
        summary:
          'List the items of a collection (collection_id required; filters token_id, attributes, locked)',
        description:
          'attributes: repeated name:value entries, all of which must match; an item matches name:value when its attribute name, as text, equals value (a string as it is, a number or boolean in its JSON form: level:5 matches 5 and "5"). Each entry needs a ":" (400 otherwise).',
        querystring: ListItemsQuery,
        response: { 200: Page(Type.Ref(Item), 'ItemPage') },
      },
    },
    async (request) => {
      const { collection_id, token_id, attributes, locked, ...page } = request.query;
      const result = await listItems(ctx.db, principalOf(request), page, {
        collection_id,
        token_id,
        attributes,
        locked,
      });
      return { ...result, results: result.results.map(toItem) };
    },
  );
