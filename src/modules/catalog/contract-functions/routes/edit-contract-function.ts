import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import {
  ContractFunctionParams,
  EditContractFunctionBody,
  EditContractFunctionResponse,
} from '../contract-functions.schemas.ts';
import { editContractFunction } from '../contract-functions.service.ts';

export const editContractFunctionRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/collections/:collection_id/functions/:function_id',
    {
      config: { access: needs('collections:write') },
      schema: {
        operationId: 'editContractFunction',
        tags: ['Contract functions'],
        summary: 'Enable or disable a contract function',
        description:
          "An enabled function can be executed through the API while the collection's functions_enabled is true as well.",
        params: ContractFunctionParams,
        body: EditContractFunctionBody,
        response: { 200: EditContractFunctionResponse },
      },
    },
    async (request) => {
      const { collection_id, function_id } = request.params;
      const contractFunction = await ctx.db
        .transaction()
        .execute((tx) =>
          editContractFunction(tx, principalOf(request), collection_id, function_id, request.body.enabled),
        );
      return { contract_func: contractFunction };
    },
  );
