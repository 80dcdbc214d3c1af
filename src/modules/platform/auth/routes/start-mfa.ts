import { ANY_USER } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { MfaEnrollment } from '../auth.schemas.ts';
import { startMfaEnrollment } from '../auth.service.ts';

export const startMfaRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/me/mfa',
    {
      config: { access: ANY_USER },
      schema: {
        operationId: 'startMfaEnrollment',
        tags: ['Auth'],
        summary: 'Start TOTP enrolment: a secret to add to an authenticator app',
        response: { 201: MfaEnrollment },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await startMfaEnrollment(ctx.db, ctx, principalOf(request))),
  );
