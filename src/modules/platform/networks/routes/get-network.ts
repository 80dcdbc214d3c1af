import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { Network, NetworkParams } from '../networks.schemas.ts';
import { getNetwork, toNetwork } from '../networks.service.ts';

export const getNetworkRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/networks/:network_id',
    {
      config: { access: needs('networks:read') },
      schema: {
        operationId: 'getNetwork',
        tags: ['Networks'],
        summary: 'Get a network',
        params: NetworkParams,
        response: { 200: Network },
      },
    },
    async (request) => toNetwork(await getNetwork(ctx.db, request.params.network_id), principalOf(request)),
  );
