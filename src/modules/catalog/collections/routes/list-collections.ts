import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { Collection, ListCollectionsQuery } from '../collections.schemas.ts';
import { listCollections, toCollection } from '../collections.service.ts';

export const listCollectionsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/collections',
    {
      config: { access: needs('collections:read') },
      schema: {
        operationId: 'listCollections',
        tags: ['Collections'],
        summary: 'List collections (filters: name, contract address, token type, network)',
        description:
          "Ordered by name (order_by NAME), ties by id. Platform admins see every organization's collections, everyone else their own organization's. contract_address is accepted in any case.",
        querystring: ListCollectionsQuery,
        response: { 200: Page(Type.Ref(Collection), 'CollectionPage') },
      },
    },
    async (request) => {
      const page = await listCollections(ctx.db, principalOf(request), request.query);
      return { ...page, results: page.results.map(toCollection) };
    },
  );
