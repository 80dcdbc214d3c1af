import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import {
  CallResult,
  ContractFunctionArgumentsBody,
  ContractFunctionParams,
} from '../contract-functions.schemas.ts';
import { callContractFunction } from '../contract-functions.service.ts';

export const callContractFunctionRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/collections/:collection_id/functions/:function_id/call',
    {
      config: { access: needs('collections:read') },
      schema: {
        operationId: 'callContractFunction',
        tags: ['Contract functions'],
        summary: 'Read from a contract function (view and pure functions only)',
        description:
          "eth_call of the function on the collection's contract, with the arguments checked and converted against the ABI (400 VALIDATION_FAILED with fields /arguments/0…). 400 for a function that is not view or pure, and when the call reverts (the detail carries the decoded reason or custom error); 409 INVALID_STATE while the collection has no deployed contract; 502 UPSTREAM_FAILED when the node does not answer. Sends nothing and needs no enabling.",
        params: ContractFunctionParams,
        body: ContractFunctionArgumentsBody,
        response: { 201: CallResult, ...errorResponses(409, 502) },
      },
    },
    async (request, reply) => {
      const { collection_id, function_id } = request.params;
      const result = await callContractFunction(
        ctx.db,
        ctx,
        principalOf(request),
        collection_id,
        function_id,
        request.body.arguments,
      );
      return reply.code(201).send(result);
    },
  );
