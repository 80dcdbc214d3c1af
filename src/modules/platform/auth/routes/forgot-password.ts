import { Type } from '@sinclair/typebox';
import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ForgotPasswordBody } from '../auth.schemas.ts';
import { forgotPassword } from '../auth.service.ts';

export const forgotPasswordRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/auth/forgot-password',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'forgotPassword',
        tags: ['Auth'],
        summary: 'Email a password reset link',
        description: 'Answers 204 whether or not the email belongs to an account with a password.',
        body: ForgotPasswordBody,
        response: { 204: Type.Null({ description: 'Accepted' }) },
      },
    },
    async (request, reply) => {
      await forgotPassword(ctx.db, ctx, request.body, request.ip);
      return reply.code(204).send(null);
    },
  );
