import type { RouteModule } from '../../../../http/types.ts';
import { getTransactionRoute } from './get-transaction.ts';
import { listTransactionsRoute } from './list-transactions.ts';

export const transactionRoutes: RouteModule[] = [listTransactionsRoute, getTransactionRoute];
