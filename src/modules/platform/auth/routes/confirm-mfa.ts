import { ANY_USER } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ConfirmMfaBody, Session } from '../auth.schemas.ts';
import { confirmMfa } from '../auth.service.ts';

export const confirmMfaRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/me/mfa/confirm',
    {
      config: { access: ANY_USER },
      schema: {
        operationId: 'confirmMfa',
        tags: ['Auth'],
        summary: 'Turn MFA on with a first TOTP code',
        description: 'Revokes every older token of the user and answers a new session.',
        body: ConfirmMfaBody,
        response: { 200: Session },
      },
    },
    async (request) => confirmMfa(ctx.db, ctx, principalOf(request), request.body.code),
  );
