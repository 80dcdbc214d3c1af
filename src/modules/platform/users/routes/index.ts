import type { RouteModule } from '../../../../http/types.ts';
import { editUserRoute } from './edit-user.ts';
import { getUserRoute } from './get-user.ts';
import { inviteUserRoute } from './invite-user.ts';
import { listUsersRoute } from './list-users.ts';

export const userRoutes: RouteModule[] = [inviteUserRoute, listUsersRoute, getUserRoute, editUserRoute];
