import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { LoginMfaBody, Session } from '../auth.schemas.ts';
import { loginWithMfa } from '../auth.service.ts';

export const loginMfaRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/auth/login/mfa',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'loginMfa',
        tags: ['Auth'],
        summary: 'Finish an MFA log in with a TOTP code',
        body: LoginMfaBody,
        response: { 200: Session },
      },
    },
    async (request) => loginWithMfa(ctx.db, ctx, request.body, request.ip),
  );
