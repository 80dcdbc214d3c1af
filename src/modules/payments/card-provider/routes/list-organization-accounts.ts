import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { OrganizationParams } from '../../../platform/organizations/organizations.schemas.ts';
import { getOrganization } from '../../../platform/organizations/organizations.service.ts';
import { ListOrganizationAccountsQuery, OrganizationCardProviderAccount } from '../card-provider.schemas.ts';
import { listOrganizationAccounts } from '../card-provider.service.ts';

export const listOrganizationAccountsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/organizations/:organization_id/card-provider-accounts',
    {
      config: { access: needs('organizations:read') },
      schema: {
        operationId: 'listOrganizationCardProviderAccounts',
        tags: ['Card provider'],
        summary: "The platform's card-provider accounts as the organization sees them",
        description:
          'Every platform account with enabled: whether the organization may set up its connected account on it (the platform decides). enabled filters.',
        params: OrganizationParams,
        querystring: ListOrganizationAccountsQuery,
        response: {
          200: Page(Type.Ref(OrganizationCardProviderAccount), 'OrganizationCardProviderAccountPage'),
        },
      },
    },
    async (request) => {
      const organization = await getOrganization(
        ctx.db,
        principalOf(request),
        request.params.organization_id,
      );
      const { enabled, ...page } = request.query;
      return listOrganizationAccounts(ctx.db, organization.id, page, { enabled });
    },
  );
