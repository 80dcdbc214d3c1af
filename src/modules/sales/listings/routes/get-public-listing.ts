import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { getPublicListing } from '../listing-sales.service.ts';
import { ListingParams, PublicListing } from '../listings.schemas.ts';

export const getPublicListingRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/public/listings/:listing_id',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'getPublicListing',
        tags: ['Public'],
        summary: "A buyer's view of a listing",
        description:
          'What a buyer needs: price, currency, providers, window, units remaining and available, the contract; no organization internals (allow lists, campaign).',
        params: ListingParams,
        response: { 200: PublicListing, ...errorResponses(404) },
      },
    },
    async (request) => getPublicListing(ctx.db, request.params.listing_id),
  );
