import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { LoginResult, VerifyUserBody } from '../auth.schemas.ts';
import { verifyUser } from '../auth.service.ts';

export const verifyUserRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/auth/verify',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'verifyUser',
        tags: ['Auth'],
        summary: 'Confirm an invited user with the emailed token and set the password',
        body: VerifyUserBody,
        response: { 200: LoginResult },
      },
    },
    async (request) => verifyUser(ctx.db, ctx, request.body, request.ip),
  );
