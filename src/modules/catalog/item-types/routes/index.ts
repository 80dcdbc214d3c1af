import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { ItemType } from '../item-types.schemas.ts';
import { createItemTypeRoute } from './create-item-type.ts';
import { editItemTypeRoute } from './edit-item-type.ts';
import { getItemTypeRoute } from './get-item-type.ts';
import { getMetaSchemaRoute } from './get-meta-schema.ts';
import { listItemTypesRoute } from './list-item-types.ts';

export const itemTypeRoutes: RouteModule[] = [
  listItemTypesRoute,
  createItemTypeRoute,
  getMetaSchemaRoute,
  getItemTypeRoute,
  editItemTypeRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const itemTypeSchemas: TSchema[] = [ItemType];
