import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListTransferRequestsQuery, TransferRequest } from '../transfer-requests.schemas.ts';
import { listTransferRequests } from '../transfer-requests.service.ts';

export const listTransferRequestsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/transfer-requests',
    {
      config: { access: needs('transfer_requests:read') },
      schema: {
        operationId: 'listTransferRequests',
        tags: ['Transfer requests'],
        summary: 'List transfer requests (filters: item, collection, receiving address)',
        querystring: ListTransferRequestsQuery,
        response: { 200: Page(Type.Ref(TransferRequest), 'TransferRequestPage') },
      },
    },
    async (request) => {
      const { item_id, collection_id, to_address, ...page } = request.query;
      return listTransferRequests(ctx.db, principalOf(request), page, { item_id, collection_id, to_address });
    },
  );
