import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ItemType, ListItemTypesQuery } from '../item-types.schemas.ts';
import { listItemTypes, toItemType } from '../item-types.service.ts';

export const listItemTypesRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/item-types',
    {
      // Listing item types is for organization and platform admins
      // only; item_types:write is the permission only admins hold.
      config: { access: needs('item_types:write') },
      schema: {
        operationId: 'listItemTypes',
        tags: ['Item types'],
        summary: 'List item types (admins only)',
        description:
          "Without organization_id a platform admin gets every organization's item types and an organization admin its own organization's; organization_id filters (another organization's id gives an organization admin an empty page).",
        querystring: ListItemTypesQuery,
        response: { 200: Page(Type.Ref(ItemType), 'ItemTypePage') },
      },
    },
    async (request) => {
      const { organization_id, ...page } = request.query;
      const result = await listItemTypes(ctx.db, principalOf(request), page, organization_id);
      return { ...result, results: result.results.map(toItemType) };
    },
  );
