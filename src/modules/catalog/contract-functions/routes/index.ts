import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { ContractFunction } from '../contract-functions.schemas.ts';
import { callContractFunctionRoute } from './call-contract-function.ts';
import { editContractFunctionRoute } from './edit-contract-function.ts';
import { executeContractFunctionRoute } from './execute-contract-function.ts';
import { getContractFunctionRoute } from './get-contract-function.ts';
import { listContractFunctionsRoute } from './list-contract-functions.ts';

export const contractFunctionRoutes: RouteModule[] = [
  listContractFunctionsRoute,
  getContractFunctionRoute,
  editContractFunctionRoute,
  callContractFunctionRoute,
  executeContractFunctionRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const contractFunctionSchemas: TSchema[] = [ContractFunction];
