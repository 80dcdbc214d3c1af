import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { Listing, ListingParams } from '../listings.schemas.ts';
import { getListing } from '../listings.service.ts';

export const getListingRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/listings/:listing_id',
    {
      config: { access: needs('listings:read') },
      schema: {
        operationId: 'getListing',
        tags: ['Listings'],
        summary: 'Get a listing',
        params: ListingParams,
        response: { 200: Type.Ref(Listing), ...errorResponses(404) },
      },
    },
    async (request) => getListing(ctx.db, principalOf(request), request.params.listing_id),
  );
