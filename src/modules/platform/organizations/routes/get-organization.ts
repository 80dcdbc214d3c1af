import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { Organization, OrganizationParams } from '../organizations.schemas.ts';
import { getOrganization, toOrganization } from '../organizations.service.ts';

export const getOrganizationRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/organizations/:organization_id',
    {
      config: { access: needs('organizations:read') },
      schema: {
        operationId: 'getOrganization',
        tags: ['Organizations'],
        summary: 'Get an organization',
        params: OrganizationParams,
        response: { 200: Organization },
      },
    },
    async (request) =>
      toOrganization(await getOrganization(ctx.db, principalOf(request), request.params.organization_id)),
  );
