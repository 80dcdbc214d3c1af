import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import {
  CollectionFunctionsParams,
  ContractFunction,
  ListContractFunctionsQuery,
} from '../contract-functions.schemas.ts';
import { listContractFunctions } from '../contract-functions.service.ts';

export const listContractFunctionsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/collections/:collection_id/functions',
    {
      config: { access: needs('collections:read') },
      schema: {
        operationId: 'listContractFunctions',
        tags: ['Contract functions'],
        summary: "List the functions of a collection's contract",
        description:
          "The function entries of the collection's ABI, ordered by id (the 4-byte selector, so overloads are distinct functions), each with whether execute is enabled for it. A collection without an ABI yet (not deployed) has none.",
        params: CollectionFunctionsParams,
        querystring: ListContractFunctionsQuery,
        response: { 200: Page(Type.Ref(ContractFunction), 'ContractFunctionPage') },
      },
    },
    async (request) => {
      const { collection_id } = request.params;
      return listContractFunctions(ctx.db, principalOf(request), collection_id, request.query);
    },
  );
