import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import {
  ContractFunctionArgumentsBody,
  ContractFunctionParams,
  ExecuteResult,
} from '../contract-functions.schemas.ts';
import { executeContractFunction } from '../contract-functions.service.ts';

export const executeContractFunctionRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/collections/:collection_id/functions/:function_id/execute',
    {
      config: { access: needs('collections:write') },
      schema: {
        operationId: 'executeContractFunction',
        tags: ['Contract functions'],
        summary: 'Execute a contract function (a transaction from the organization wallet)',
        description:
          "Queues a FUNCTION_EXECUTE transaction from the organization's wallet to the collection's contract; follow it at GET /v1/transactions/{transaction_id} (a call the contract refuses ends CANCELLED with the revert reason, before any nonce is used). 409 INVALID_STATE unless the collection's functions_enabled is true, the function is enabled and the contract is deployed; 400 for view and pure functions and for arguments that do not match the ABI (fields /arguments/0…). Payable functions are sent without value.",
        params: ContractFunctionParams,
        body: ContractFunctionArgumentsBody,
        response: { 201: ExecuteResult, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const { collection_id, function_id } = request.params;
      const result = await ctx.db
        .transaction()
        .execute((tx) =>
          executeContractFunction(
            tx,
            principalOf(request),
            collection_id,
            function_id,
            request.body.arguments,
          ),
        );
      return reply.code(201).send(result);
    },
  );
