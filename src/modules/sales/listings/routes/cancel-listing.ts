import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { Listing, ListingParams } from '../listings.schemas.ts';
import { cancelListing } from '../listings.service.ts';

export const cancelListingRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/listings/:listing_id/cancel',
    {
      config: { access: needs('listings:write') },
      schema: {
        operationId: 'cancelListing',
        tags: ['Listings'],
        summary: 'Cancel a listing',
        description:
          'Only while PENDING_TX or ACTIVE (else 409 INVALID_STATE): unsold items are released and PENDING purchase intents become CANCELLED.',
        params: ListingParams,
        response: { 200: Type.Ref(Listing), ...errorResponses(404, 409) },
      },
    },
    async (request) =>
      ctx.db
        .transaction()
        .execute((tx) => cancelListing(tx, ctx, principalOf(request), request.params.listing_id)),
  );
