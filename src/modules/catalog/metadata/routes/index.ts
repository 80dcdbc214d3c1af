import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { getContractMetadataRoute } from './get-contract-metadata.ts';
import { getTokenMetadataRoute } from './get-token-metadata.ts';

export const metadataRoutes: RouteModule[] = [getContractMetadataRoute, getTokenMetadataRoute];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const metadataSchemas: TSchema[] = [];
