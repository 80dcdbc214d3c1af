import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { getEligibility } from '../listing-sales.service.ts';
import { Eligibility, EligibilityQuery, ListingParams } from '../listings.schemas.ts';

export const getListingEligibilityRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/public/listings/:listing_id/eligibility',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'getListingEligibility',
        tags: ['Public'],
        summary: 'Whether a buyer may buy from a listing now',
        description:
          "quantity_claimed: the buyer's units in PENDING and CONFIRMED intents (email any case, address by value); quantity_allowed: what max_per_user still allows (null without a limit); reason when not eligible.",
        params: ListingParams,
        querystring: EligibilityQuery,
        response: { 200: Eligibility, ...errorResponses(404) },
      },
    },
    async (request) => getEligibility(ctx.db, request.params.listing_id, request.query),
  );
