import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { Listing, ListListingsQuery } from '../listings.schemas.ts';
import { listListings } from '../listings.service.ts';

export const listListingsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/listings',
    {
      config: { access: needs('listings:read') },
      schema: {
        operationId: 'listListings',
        tags: ['Listings'],
        summary: 'List listings',
        description:
          'Filters: item_id (item-level listings of the item and collection-level ones that reserved it), collection_id, status (repeated parameter). Creation order.',
        querystring: ListListingsQuery,
        response: { 200: Page(Type.Ref(Listing), 'ListingPage') },
      },
    },
    async (request) => listListings(ctx.db, principalOf(request), request.query),
  );
