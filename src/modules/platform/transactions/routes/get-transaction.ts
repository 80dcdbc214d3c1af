import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { Transaction, TransactionParams } from '../transactions.schemas.ts';
import { getTransaction, toTransaction } from '../transactions.service.ts';

export const getTransactionRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/transactions/:transaction_id',
    {
      config: { access: needs('transactions:read') },
      schema: {
        operationId: 'getTransaction',
        tags: ['Transactions'],
        summary: 'Get a transaction: state, hash, fees, attempts, on-chain status, failure reason',
        params: TransactionParams,
        response: { 200: Transaction },
      },
    },
    async (request) =>
      toTransaction(await getTransaction(ctx.db, principalOf(request), request.params.transaction_id)),
  );
