import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import {
  EditPlatformAccountBody,
  PlatformAccountParams,
  PlatformCardProviderAccount,
} from '../card-provider.schemas.ts';
import { editPlatformAccount, toPlatformAccount } from '../card-provider.service.ts';

export const editPlatformAccountRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/card-provider/platform-accounts/:platform_card_provider_account_id',
    {
      config: { access: needs('platform:admin') },
      schema: {
        operationId: 'editPlatformCardProviderAccount',
        tags: ['Card provider'],
        summary: 'Edit a platform card-provider account',
        description:
          'Every field optional; a given field replaces the stored one (a secret left out is kept; null removes a webhook endpoint secret). The keys must still match the mode (400).',
        params: PlatformAccountParams,
        body: EditPlatformAccountBody,
        response: { 200: Type.Ref(PlatformCardProviderAccount), ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) =>
          editPlatformAccount(tx, ctx, request.params.platform_card_provider_account_id, request.body),
        );
      return toPlatformAccount(row);
    },
  );
