import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { CardProviderStatus } from '../card-provider.schemas.ts';
import { cardProviderStatus } from '../card-provider.service.ts';

export const getCardProviderStatusRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/card-provider',
    {
      config: { access: needs('organizations:read') },
      schema: {
        operationId: 'getCardProviderStatus',
        tags: ['Card provider'],
        summary: "The organization's card-provider status",
        description:
          "account_id and connect_type of the organization's connected account (null before set-up); setup_complete once the provider reports charges enabled and details submitted (kept current by account.updated events and the REFRESH command).",
        response: { 200: Type.Ref(CardProviderStatus) },
      },
    },
    async (request) => cardProviderStatus(ctx.db, principalOf(request).organizationId),
  );
