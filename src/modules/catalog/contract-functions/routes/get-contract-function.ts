import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ContractFunction, ContractFunctionParams } from '../contract-functions.schemas.ts';
import { getContractFunction } from '../contract-functions.service.ts';

export const getContractFunctionRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/collections/:collection_id/functions/:function_id',
    {
      config: { access: needs('collections:read') },
      schema: {
        operationId: 'getContractFunction',
        tags: ['Contract functions'],
        summary: "Get a function of a collection's contract",
        description:
          "function_id is the selector without 0x, in either case. 404 when the collection's ABI has no such function.",
        params: ContractFunctionParams,
        response: { 200: Type.Ref(ContractFunction) },
      },
    },
    async (request) => {
      const { collection_id, function_id } = request.params;
      return getContractFunction(ctx.db, principalOf(request), collection_id, function_id);
    },
  );
