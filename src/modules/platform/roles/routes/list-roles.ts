import { ANY_USER } from '../../../../access/access.ts';
import { Page } from '../../../../http/pagination.ts';
import { permissionsInUse } from '../../../../http/route-table.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListRolesQuery, Role } from '../roles.schemas.ts';
import { listRoles } from '../roles.service.ts';

export const listRolesRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/roles',
    {
      config: { access: ANY_USER },
      schema: {
        operationId: 'listRoles',
        tags: ['Users'],
        summary: 'List roles and their permission strings',
        querystring: ListRolesQuery,
        response: { 200: Page(Role, 'RolePage') },
      },
    },
    async (request) => listRoles(ctx.db, request.query, permissionsInUse(app)),
  );
