import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { TransferRequest, TransferRequestParams } from '../transfer-requests.schemas.ts';
import { getTransferRequest } from '../transfer-requests.service.ts';

export const getTransferRequestRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/transfer-requests/:transfer_request_id',
    {
      config: { access: needs('transfer_requests:read') },
      schema: {
        operationId: 'getTransferRequest',
        tags: ['Transfer requests'],
        summary: 'Get a transfer request: its state mirrors its transaction',
        params: TransferRequestParams,
        response: { 200: Type.Ref(TransferRequest) },
      },
    },
    async (request) => getTransferRequest(ctx.db, principalOf(request), request.params.transfer_request_id),
  );
