import type { RouteModule } from '../../../../http/types.ts';
import { createOrganizationRoute } from './create-organization.ts';
import { editOrganizationRoute } from './edit-organization.ts';
import { editPayoutConfigRoute } from './edit-payout-config.ts';
import { getOrganizationRoute } from './get-organization.ts';
import { getPayoutConfigRoute } from './get-payout-config.ts';
import { listOrganizationWalletsRoute } from './list-organization-wallets.ts';
import { listOrganizationsRoute } from './list-organizations.ts';

export const organizationRoutes: RouteModule[] = [
  listOrganizationsRoute,
  createOrganizationRoute,
  getOrganizationRoute,
  editOrganizationRoute,
  getPayoutConfigRoute,
  editPayoutConfigRoute,
  listOrganizationWalletsRoute,
];
