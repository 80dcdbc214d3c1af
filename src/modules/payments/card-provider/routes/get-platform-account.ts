import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { PlatformAccountParams, PlatformCardProviderAccount } from '../card-provider.schemas.ts';
import { getPlatformAccount, toPlatformAccount } from '../card-provider.service.ts';

export const getPlatformAccountRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/card-provider/platform-accounts/:platform_card_provider_account_id',
    {
      config: { access: needs('platform:admin') },
      schema: {
        operationId: 'getPlatformCardProviderAccount',
        tags: ['Card provider'],
        summary: 'Get a platform card-provider account',
        description: 'Without its secrets.',
        params: PlatformAccountParams,
        response: { 200: Type.Ref(PlatformCardProviderAccount), ...errorResponses(404) },
      },
    },
    async (request) =>
      toPlatformAccount(await getPlatformAccount(ctx.db, request.params.platform_card_provider_account_id)),
  );
