import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListNetworksQuery, Network } from '../networks.schemas.ts';
import { listNetworks, toNetwork } from '../networks.service.ts';

export const listNetworksRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/networks',
    {
      config: { access: needs('networks:read') },
      schema: {
        operationId: 'listNetworks',
        tags: ['Networks'],
        summary: 'List networks',
        querystring: ListNetworksQuery,
        response: { 200: Page(Network, 'NetworkPage') },
      },
    },
    async (request) => {
      const page = await listNetworks(ctx.db, request.query);
      return { ...page, results: page.results.map((n) => toNetwork(n, principalOf(request))) };
    },
  );
