import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListOrganizationsQuery, Organization } from '../organizations.schemas.ts';
import { listOrganizations, toOrganization } from '../organizations.service.ts';

export const listOrganizationsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/organizations',
    {
      config: { access: needs('organizations:read') },
      schema: {
        operationId: 'listOrganizations',
        tags: ['Organizations'],
        summary: 'List organizations (one for everyone but platform admins)',
        querystring: ListOrganizationsQuery,
        response: { 200: Page(Type.Ref(Organization), 'OrganizationPage') },
      },
    },
    async (request) => {
      const page = await listOrganizations(ctx.db, principalOf(request), request.query);
      return { ...page, results: page.results.map(toOrganization) };
    },
  );
