import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { Listing } from '../listings.schemas.ts';
import { cancelListingRoute } from './cancel-listing.ts';
import { createListingRoute } from './create-listing.ts';
import { editListingRoute } from './edit-listing.ts';
import { getListingRoute } from './get-listing.ts';
import { getListingEligibilityRoute } from './get-listing-eligibility.ts';
import { getPublicListingRoute } from './get-public-listing.ts';
import { listListingsRoute } from './list-listings.ts';

export const listingRoutes: RouteModule[] = [
  listListingsRoute,
  createListingRoute,
  getListingRoute,
  editListingRoute,
  cancelListingRoute,
  getPublicListingRoute,
  getListingEligibilityRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const listingSchemas: TSchema[] = [Listing];
