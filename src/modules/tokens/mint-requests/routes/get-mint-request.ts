import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { MintRequest, MintRequestParams } from '../mint-requests.schemas.ts';
import { getMintRequest } from '../mint-requests.service.ts';

export const getMintRequestRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/mint-requests/:mint_request_id',
    {
      config: { access: needs('mint_requests:read') },
      schema: {
        operationId: 'getMintRequest',
        tags: ['Mint requests'],
        summary: 'Get a mint request: its state mirrors its transaction',
        params: MintRequestParams,
        response: { 200: Type.Ref(MintRequest) },
      },
    },
    async (request) => getMintRequest(ctx.db, principalOf(request), request.params.mint_request_id),
  );
