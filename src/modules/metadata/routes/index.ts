import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';

export const metadataRoutes: RouteModule[] = [];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const metadataSchemas: TSchema[] = [];
