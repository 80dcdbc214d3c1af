import type { RouteModule } from '../../../http/types.ts';
import { listOrganizationWalletsRoute } from './list-organization-wallets.ts';

export const walletRoutes: RouteModule[] = [listOrganizationWalletsRoute];
