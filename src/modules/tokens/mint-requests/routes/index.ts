import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { MintRequest } from '../mint-requests.schemas.ts';
import { createMintRequestsRoute } from './create-mint-requests.ts';
import { getMintRequestRoute } from './get-mint-request.ts';
import { listMintRequestsRoute } from './list-mint-requests.ts';

export const mintRequestRoutes: RouteModule[] = [
  listMintRequestsRoute,
  createMintRequestsRoute,
  getMintRequestRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const mintRequestSchemas: TSchema[] = [MintRequest];
