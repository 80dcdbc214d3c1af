import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { CreateNetworkBody, Network } from '../networks.schemas.ts';
import { createNetwork, toNetwork } from '../networks.service.ts';

export const createNetworkRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/networks',
    {
      config: { access: needs('networks:write') },
      schema: {
        operationId: 'createNetwork',
        tags: ['Networks'],
        summary: 'Register a network (platform admins)',
        description:
          "An enabled network's node at config.url must answer eth_chainId with the network id (else 400 naming both ids; 502 when it does not answer). A network created with enabled false is stored without contacting its node (it may not be reachable yet); its chain id is checked when it is enabled, and it takes no payment_tokens until then (400). Payment tokens given here are added as by addPaymentToken, all or nothing.",
        body: CreateNetworkBody,
        response: { 201: Network },
      },
    },
    async (request, reply) => {
      const created = await ctx.db.transaction().execute((tx) => createNetwork(tx, ctx, request.body));
      return reply.code(201).send(toNetwork(created, principalOf(request)));
    },
  );
