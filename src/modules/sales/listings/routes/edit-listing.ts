import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { EditListingBody, Listing, ListingParams } from '../listings.schemas.ts';
import { editListing } from '../listings.service.ts';

export const editListingRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/listings/:listing_id',
    {
      config: { access: needs('listings:write') },
      schema: {
        operationId: 'editListing',
        tags: ['Listings'],
        summary: 'Edit a listing',
        description:
          'start_time, end_time, policy (its type cannot change: 409 INVALID_STATE) and campaign_id (a campaign of the organization, else 404), only while PENDING_TX or ACTIVE (else 409 INVALID_STATE).',
        params: ListingParams,
        body: EditListingBody,
        response: { 200: Type.Ref(Listing), ...errorResponses(400, 404, 409) },
      },
    },
    async (request) =>
      ctx.db
        .transaction()
        .execute((tx) => editListing(tx, principalOf(request), request.params.listing_id, request.body)),
  );
