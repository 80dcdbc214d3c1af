import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { PurchaseIntent } from '../purchase-intents.schemas.ts';
import { cancelPublicPurchaseIntentRoute } from './cancel-public-purchase-intent.ts';
import { createPurchaseIntentRoute } from './create-purchase-intent.ts';
import { getPublicPurchaseIntentRoute } from './get-public-purchase-intent.ts';
import { getPurchaseIntentRoute } from './get-purchase-intent.ts';
import { listPurchaseIntentsRoute } from './list-purchase-intents.ts';

export const purchaseIntentRoutes: RouteModule[] = [
  listPurchaseIntentsRoute,
  getPurchaseIntentRoute,
  createPurchaseIntentRoute,
  getPublicPurchaseIntentRoute,
  cancelPublicPurchaseIntentRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const purchaseIntentSchemas: TSchema[] = [PurchaseIntent];
