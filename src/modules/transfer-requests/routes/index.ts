import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../http/types.ts';

export const transferRequestRoutes: RouteModule[] = [];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const transferRequestSchemas: TSchema[] = [];
