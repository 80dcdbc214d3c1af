import { ANY_USER } from '../../../../access/access.ts';
import { listedPermissions, type Permission, type RoleName } from '../../../../access/permissions.ts';
import { principalOf } from '../../../../http/access.ts';
import { permissionsInUse } from '../../../../http/route-table.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { Me } from '../auth.schemas.ts';
import { getMe } from '../auth.service.ts';

export const getMeRoute: RouteModule = (app, ctx) => {
  // Each role's list, computed at its first request (every route is registered by then).
  const listed = new Map<RoleName, Permission[]>();
  const permissionsOf = (role: RoleName): Permission[] => {
    let permissions = listed.get(role);
    if (permissions === undefined) {
      permissions = listedPermissions(role, permissionsInUse(app));
      listed.set(role, permissions);
    }
    return permissions;
  };
  return app.get(
    '/v1/me',
    {
      config: { access: ANY_USER },
      schema: {
        operationId: 'getMe',
        tags: ['Auth'],
        summary: 'The current user, its organization and permissions',
        response: { 200: Me },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { user, organization } = await getMe(ctx.db, principal);
      return {
        user,
        organization,
        permissions: permissionsOf(principal.role),
      };
    },
  );
};
