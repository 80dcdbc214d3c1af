import { needs } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { CreateOrganizationBody, Organization } from '../organizations.schemas.ts';
import { createOrganization, toOrganization } from '../organizations.service.ts';

export const createOrganizationRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/organizations',
    {
      config: { access: needs('platform:admin') },
      schema: {
        operationId: 'createOrganization',
        tags: ['Organizations'],
        summary: 'Create an organization (platform admins)',
        body: CreateOrganizationBody,
        response: { 201: Organization },
      },
    },
    async (request, reply) => {
      const row = await ctx.db.transaction().execute((tx) => createOrganization(tx, ctx, request.body));
      return reply.code(201).send(toOrganization(row));
    },
  );
