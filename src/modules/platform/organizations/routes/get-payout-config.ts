import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { OrganizationParams, PayoutConfig } from '../organizations.schemas.ts';
import { getOrganization, toPayoutConfig } from '../organizations.service.ts';

export const getPayoutConfigRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/organizations/:organization_id/payout-config',
    {
      config: { access: needs('organizations:read') },
      schema: {
        operationId: 'getPayoutConfig',
        tags: ['Organizations'],
        summary: 'Get the payout address and platform sale fee',
        params: OrganizationParams,
        response: { 200: PayoutConfig },
      },
    },
    async (request) =>
      toPayoutConfig(await getOrganization(ctx.db, principalOf(request), request.params.organization_id)),
  );
