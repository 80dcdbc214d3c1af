import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EditNetworkBody, Network, NetworkParams } from '../networks.schemas.ts';
import { editNetwork, toNetwork } from '../networks.service.ts';

export const editNetworkRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/networks/:network_id',
    {
      config: { access: needs('networks:write') },
      schema: {
        operationId: 'editNetwork',
        tags: ['Networks'],
        summary: 'Edit a network (platform admins)',
        description:
          "Null leaves a field as it is; config merges field by field (gasStrategy too). When the network becomes enabled, or its config.url changes while it is enabled, the node must answer eth_chainId with the network id (else 400 naming both ids; 502 when it does not answer); a disabled network's url is not checked.",
        params: NetworkParams,
        body: EditNetworkBody,
        response: { 200: Network },
      },
    },
    async (request) => {
      const edited = await editNetwork(ctx.db, ctx, request.params.network_id, request.body);
      return toNetwork(edited, principalOf(request));
    },
  );
