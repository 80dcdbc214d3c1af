import { needs } from '../../../../access/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListPaymentTokensQuery, NetworkParams, PaymentToken } from '../networks.schemas.ts';
import { listPaymentTokens, toPaymentToken } from '../networks.service.ts';

export const listPaymentTokensRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/networks/:network_id/payment-tokens',
    {
      config: { access: needs('networks:read') },
      schema: {
        operationId: 'listPaymentTokens',
        tags: ['Networks'],
        summary: 'List the payment tokens of a network (ordered by address)',
        params: NetworkParams,
        querystring: ListPaymentTokensQuery,
        response: { 200: Page(PaymentToken, 'PaymentTokenPage') },
      },
    },
    async (request) => {
      const page = await listPaymentTokens(ctx.db, request.params.network_id, request.query);
      return { ...page, results: page.results.map(toPaymentToken) };
    },
  );
