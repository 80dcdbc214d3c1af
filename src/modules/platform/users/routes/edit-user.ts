import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EditUserBody, User } from '../users.schemas.ts';
import { editUser, toUser } from '../users.service.ts';
import { UserParams } from './get-user.ts';

export const editUserRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/users/:user_id',
    {
      config: { access: needs('users:write') },
      schema: {
        operationId: 'editUser',
        tags: ['Users'],
        summary: 'Edit a user: activate or deactivate, change role',
        description: 'Deactivation revokes every token and API key session of the user at once.',
        params: UserParams,
        body: EditUserBody,
        response: { 200: User },
      },
    },
    async (request) => {
      const user = await ctx.db
        .transaction()
        .execute((tx) => editUser(tx, principalOf(request), request.params.user_id, request.body));
      return toUser(user);
    },
  );
