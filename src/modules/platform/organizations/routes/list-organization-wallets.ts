import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListOrganizationWalletsQuery, OrganizationWallet } from '../../wallets/wallets.schemas.ts';
import { listOrganizationWallets } from '../../wallets/wallets.service.ts';
import { OrganizationParams } from '../organizations.schemas.ts';
import { getOrganization } from '../organizations.service.ts';

export const listOrganizationWalletsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/organizations/:organization_id/wallets',
    {
      config: { access: needs('organizations:read') },
      schema: {
        operationId: 'listOrganizationWallets',
        tags: ['Organizations'],
        summary: "List an organization's wallets with their balances",
        description:
          "balance maps each of the organization's enabled networks to the wallet's native balance in wei, or null when that network's node did not answer.",
        params: OrganizationParams,
        querystring: ListOrganizationWalletsQuery,
        response: { 200: Page(OrganizationWallet, 'OrganizationWalletPage') },
      },
    },
    async (request) => {
      const organization = await getOrganization(
        ctx.db,
        principalOf(request),
        request.params.organization_id,
      );
      return listOrganizationWallets(ctx.db, ctx, organization, request.query);
    },
  );
