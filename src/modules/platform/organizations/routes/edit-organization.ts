import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EditOrganizationBody, Organization, OrganizationParams } from '../organizations.schemas.ts';
import { editOrganization, toOrganization } from '../organizations.service.ts';

export const editOrganizationRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/organizations/:organization_id',
    {
      config: { access: needs('organizations:write') },
      schema: {
        operationId: 'editOrganization',
        tags: ['Organizations'],
        summary: 'Edit an organization',
        description:
          'Organization admins may change mfa_required and payout_address; every other field is for platform admins. Null leaves a non-nullable field as it is.',
        params: OrganizationParams,
        body: EditOrganizationBody,
        response: { 200: Organization },
      },
    },
    async (request) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) =>
          editOrganization(tx, principalOf(request), request.params.organization_id, request.body),
        );
      return toOrganization(row);
    },
  );
