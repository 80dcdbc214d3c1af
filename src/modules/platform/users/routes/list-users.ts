import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { listQueryProperties, Page } from '../../../../http/pagination.ts';
import { Uuid } from '../../../../http/schemas.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { User } from '../users.schemas.ts';
import { listUsers, toUser } from '../users.service.ts';

const ListUsersQuery = Type.Object(
  { ...listQueryProperties('standard'), organization_id: Type.Optional(Uuid) },
  { additionalProperties: false },
);

export const listUsersRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/users',
    {
      config: { access: needs('users:read') },
      schema: {
        operationId: 'listUsers',
        tags: ['Users'],
        summary: 'List users (platform admins: all, or one organization with organization_id)',
        querystring: ListUsersQuery,
        response: { 200: Page(Type.Ref(User), 'UserPage') },
      },
    },
    async (request) => {
      const { organization_id, ...page } = request.query;
      const result = await listUsers(ctx.db, principalOf(request), page, organization_id);
      return { ...result, results: result.results.map(toUser) };
    },
  );
