import { ANY_USER } from '../../../access/access.ts';
import { listedPermissions } from '../../../access/permissions.ts';
import { principalOf } from '../../../http/access.ts';
import { permissionsInUse } from '../../../http/route-table.ts';
import type { RouteModule } from '../../../http/types.ts';
import { getOrganization, toOrganization } from '../../organizations/organizations.service.ts';
import { getUser, toUser } from '../../users/users.service.ts';
import { Me } from '../auth.schemas.ts';

export const getMeRoute: RouteModule = (app, ctx) =>
  app.get(
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
      const [user, organization] = await Promise.all([
        getUser(ctx.db, principal, principal.userId),
        getOrganization(ctx.db, principal, principal.organizationId),
      ]);
      return {
        user: toUser(user),
        organization: toOrganization(organization),
        permissions: listedPermissions(principal.role, permissionsInUse(app)),
      };
    },
  );
