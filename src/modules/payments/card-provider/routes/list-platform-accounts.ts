import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListPlatformAccountsQuery, PlatformCardProviderAccount } from '../card-provider.schemas.ts';
import { listPlatformAccounts, toPlatformAccount } from '../card-provider.service.ts';

export const listPlatformAccountsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/card-provider/platform-accounts',
    {
      config: { access: needs('platform:admin') },
      schema: {
        operationId: 'listPlatformCardProviderAccounts',
        tags: ['Card provider'],
        summary: "List the platform's card-provider accounts",
        description: 'mode filters. Secrets (secret_key, webhook endpoint secrets) are never returned.',
        querystring: ListPlatformAccountsQuery,
        response: { 200: Page(Type.Ref(PlatformCardProviderAccount), 'PlatformCardProviderAccountPage') },
      },
    },
    async (request) => {
      const { mode, ...page } = request.query;
      const result = await listPlatformAccounts(ctx.db, page, { mode });
      return { ...result, results: result.results.map(toPlatformAccount) };
    },
  );
