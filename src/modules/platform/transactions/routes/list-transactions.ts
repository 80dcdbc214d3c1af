import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { checkedAddress } from '../../../../http/inputs.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListTransactionsQuery, Transaction } from '../transactions.schemas.ts';
import { listTransactions, toTransaction } from '../transactions.service.ts';

export const listTransactionsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/transactions',
    {
      config: { access: needs('transactions:read') },
      schema: {
        operationId: 'listTransactions',
        tags: ['Transactions'],
        summary: 'List on-chain transactions (filters: network, state, type, wallet, signer)',
        description:
          'network_id, state, type and wallet_id take one value; network_ids, tx_types, states and signers (the names of the platform this API follows) are repeated query parameters, each matching any of its values. Every filter given narrows the list.',
        querystring: ListTransactionsQuery,
        response: { 200: Page(Type.Ref(Transaction), 'TransactionPage') },
      },
    },
    async (request) => {
      const { network_id, state, type, wallet_id, network_ids, tx_types, states, signers, ...page } =
        request.query;
      const result = await listTransactions(ctx.db, principalOf(request), page, {
        networkId: network_id,
        state,
        type,
        walletId: wallet_id,
        networkIds: network_ids,
        types: tx_types,
        states,
        signers: signers?.map((signer, i) => checkedAddress(signer, `querystring:/signers/${i}`)),
      });
      return { ...result, results: result.results.map(toTransaction) };
    },
  );
