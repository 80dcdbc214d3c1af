import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { LoginBody, LoginResult } from '../auth.schemas.ts';
import { login } from '../auth.service.ts';

export const loginRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/auth/login',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'login',
        tags: ['Auth'],
        summary: 'Log in with email and password',
        description:
          'Answers a session, or an MFA challenge when the user has MFA on. Rate limited per account and per IP.',
        body: LoginBody,
        response: { 200: LoginResult },
      },
    },
    async (request) => login(ctx.db, ctx, request.body, request.ip),
  );
