import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { TransferRequest } from '../transfer-requests.schemas.ts';
import { createTransferRequestsRoute } from './create-transfer-requests.ts';
import { getTransferRequestRoute } from './get-transfer-request.ts';
import { listTransferRequestsRoute } from './list-transfer-requests.ts';

export const transferRequestRoutes: RouteModule[] = [
  listTransferRequestsRoute,
  createTransferRequestsRoute,
  getTransferRequestRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const transferRequestSchemas: TSchema[] = [TransferRequest];
