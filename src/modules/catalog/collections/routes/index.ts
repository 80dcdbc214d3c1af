import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { Collection } from '../collections.schemas.ts';
import { createCollectionRoute } from './create-collection.ts';
import { editCollectionRoute } from './edit-collection.ts';
import { getCollectionRoute } from './get-collection.ts';
import { getDeploymentRequestRoute } from './get-deployment-request.ts';
import { getPublicCapabilitiesRoute } from './get-public-capabilities.ts';
import { listCollectionsRoute } from './list-collections.ts';
import { submitDeploymentRequestRoute } from './submit-deployment-request.ts';

export const collectionRoutes: RouteModule[] = [
  listCollectionsRoute,
  createCollectionRoute,
  getCollectionRoute,
  editCollectionRoute,
  submitDeploymentRequestRoute,
  getDeploymentRequestRoute,
  getPublicCapabilitiesRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const collectionSchemas: TSchema[] = [Collection];
