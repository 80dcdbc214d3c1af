import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Uuid } from '../../../../http/schemas.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { User } from '../users.schemas.ts';
import { getUser, toUser } from '../users.service.ts';

export const UserParams = Type.Object({ user_id: Uuid }, { additionalProperties: false });

export const getUserRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/users/:user_id',
    {
      config: { access: needs('users:read') },
      schema: {
        operationId: 'getUser',
        tags: ['Users'],
        summary: 'Get a user',
        params: UserParams,
        response: { 200: User },
      },
    },
    async (request) => toUser(await getUser(ctx.db, principalOf(request), request.params.user_id)),
  );
