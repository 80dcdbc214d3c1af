import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { InviteUserBody, User } from '../users.schemas.ts';
import { inviteUser, toUser } from '../users.service.ts';

export const inviteUserRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/users',
    {
      config: { access: needs('users:write') },
      schema: {
        operationId: 'inviteUser',
        tags: ['Users'],
        summary: 'Invite a user: creates it and mails a USER_INVITE with a verify token',
        description: 'organization_id is for platform admins only; it defaults to the caller organization.',
        body: InviteUserBody,
        response: { 201: User },
      },
    },
    async (request, reply) => {
      const user = await ctx.db
        .transaction()
        .execute((tx) => inviteUser(tx, ctx, principalOf(request), request.body));
      return reply.code(201).send(toUser(user));
    },
  );
