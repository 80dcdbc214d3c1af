import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EditPayoutConfigBody, OrganizationParams, PayoutConfig } from '../organizations.schemas.ts';
import { editPayoutConfig, toPayoutConfig } from '../organizations.service.ts';

export const editPayoutConfigRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/organizations/:organization_id/payout-config',
    {
      config: { access: needs('organizations:write') },
      schema: {
        operationId: 'editPayoutConfig',
        tags: ['Organizations'],
        summary: 'Set the payout address (checksummed or null) and, for platform admins, the sale fee',
        params: OrganizationParams,
        body: EditPayoutConfigBody,
        response: { 200: PayoutConfig },
      },
    },
    async (request) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) =>
          editPayoutConfig(tx, principalOf(request), request.params.organization_id, request.body),
        );
      return toPayoutConfig(row);
    },
  );
