import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { LoginResult, ResetPasswordBody } from '../auth.schemas.ts';
import { resetPassword } from '../auth.service.ts';

export const resetPasswordRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/auth/reset-password',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'resetPassword',
        tags: ['Auth'],
        summary: 'Set a new password with an emailed reset token',
        description: 'Revokes every older token of the user.',
        body: ResetPasswordBody,
        response: { 200: LoginResult },
      },
    },
    async (request) => resetPassword(ctx.db, ctx, request.body, request.ip),
  );
