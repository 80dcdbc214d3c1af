import { needs } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { AddPaymentTokenBody, NetworkParams, PaymentToken } from '../networks.schemas.ts';
import { addPaymentToken, toPaymentToken } from '../networks.service.ts';

export const addPaymentTokenRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/networks/:network_id/payment-tokens',
    {
      config: { access: needs('networks:write') },
      schema: {
        operationId: 'addPaymentToken',
        tags: ['Networks'],
        summary: 'Add an ERC-20 payment token to a network (platform admins)',
        description:
          "symbol and decimals are read from the chain; an address that is not an ERC-20 is a 400, a symbol the network's tokens already use a 409.",
        params: NetworkParams,
        body: AddPaymentTokenBody,
        response: { 201: PaymentToken },
      },
    },
    async (request, reply) => {
      const token = await addPaymentToken(ctx.db, ctx, request.params.network_id, request.body);
      return reply.code(201).send(toPaymentToken(token));
    },
  );
