import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListMintRequestsQuery, MintRequest } from '../mint-requests.schemas.ts';
import { listMintRequests } from '../mint-requests.service.ts';

export const listMintRequestsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/mint-requests',
    {
      config: { access: needs('mint_requests:read') },
      schema: {
        operationId: 'listMintRequests',
        tags: ['Mint requests'],
        summary: 'List mint requests (filters: item, collection, receiving address)',
        querystring: ListMintRequestsQuery,
        response: { 200: Page(Type.Ref(MintRequest), 'MintRequestPage') },
      },
    },
    async (request) => {
      const { item_id, collection_id, to_address, ...page } = request.query;
      return listMintRequests(ctx.db, principalOf(request), page, { item_id, collection_id, to_address });
    },
  );
