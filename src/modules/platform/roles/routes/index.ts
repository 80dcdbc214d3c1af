import type { RouteModule } from '../../../../http/types.ts';
import { listRolesRoute } from './list-roles.ts';

export const roleRoutes: RouteModule[] = [listRolesRoute];
