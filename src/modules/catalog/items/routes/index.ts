import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { Item } from '../items.schemas.ts';
import { bulkCreateItemsRoute } from './bulk-create-items.ts';
import { createItemRoute } from './create-item.ts';
import { deleteItemRoute } from './delete-item.ts';
import { editItemRoute } from './edit-item.ts';
import { getItemRoute } from './get-item.ts';
import { getItemStatusRoute } from './get-item-status.ts';
import { listItemsRoute } from './list-items.ts';
import { lockItemsRoute } from './lock-items.ts';

export const itemRoutes: RouteModule[] = [
  listItemsRoute,
  createItemRoute,
  bulkCreateItemsRoute,
  lockItemsRoute,
  getItemRoute,
  getItemStatusRoute,
  editItemRoute,
  // Last: the security suite calls the routes in this order on one fixture item.
  deleteItemRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const itemSchemas: TSchema[] = [Item];
