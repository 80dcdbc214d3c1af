import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import {
  AssociateBody,
  OrganizationCardProviderAccount,
  OrganizationPlatformAccountParams,
} from '../card-provider.schemas.ts';
import { setOrganizationAccount } from '../card-provider.service.ts';

export const editOrganizationAccountRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/organizations/:organization_id/card-provider-accounts/:platform_card_provider_account_id',
    {
      config: { access: needs('platform:admin') },
      schema: {
        operationId: 'editOrganizationCardProviderAccount',
        tags: ['Card provider'],
        summary: 'Enable or disable a platform card-provider account for an organization',
        description:
          'enabled: true lets the organization set up its connected account on it; false stops its card sales on it (listings and new purchase intents answer 422 CARD_PROVIDER_NOT_READY).',
        params: OrganizationPlatformAccountParams,
        body: AssociateBody,
        response: { 200: Type.Ref(OrganizationCardProviderAccount), ...errorResponses(404) },
      },
    },
    async (request) =>
      ctx.db
        .transaction()
        .execute((tx) =>
          setOrganizationAccount(
            tx,
            request.params.organization_id,
            request.params.platform_card_provider_account_id,
            request.body.enabled,
          ),
        ),
  );
