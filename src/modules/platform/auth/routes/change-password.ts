import { ANY_USER } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ChangePasswordBody, Session } from '../auth.schemas.ts';
import { changePassword } from '../auth.service.ts';

export const changePasswordRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/auth/change-password',
    {
      config: { access: ANY_USER },
      schema: {
        operationId: 'changePassword',
        tags: ['Auth'],
        summary: 'Change the current user password',
        description: 'Revokes every older token of the user and answers a new session.',
        body: ChangePasswordBody,
        response: { 200: Session },
      },
    },
    async (request) => changePassword(ctx.db, ctx, principalOf(request), request.body),
  );
