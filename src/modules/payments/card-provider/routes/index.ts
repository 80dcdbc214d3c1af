import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import {
  CardProviderStatus,
  OrganizationCardProviderAccount,
  PlatformCardProviderAccount,
} from '../card-provider.schemas.ts';
import { cardProviderCommandRoute } from './card-provider-command.ts';
import { createPlatformAccountRoute } from './create-platform-account.ts';
import { editOrganizationAccountRoute } from './edit-organization-account.ts';
import { editPlatformAccountRoute } from './edit-platform-account.ts';
import { getCardProviderStatusRoute } from './get-card-provider-status.ts';
import { getPlatformAccountRoute } from './get-platform-account.ts';
import { listOrganizationAccountsRoute } from './list-organization-accounts.ts';
import { listPlatformAccountsRoute } from './list-platform-accounts.ts';
import { setupCardProviderRoute } from './setup-card-provider.ts';

export const cardProviderRoutes: RouteModule[] = [
  listPlatformAccountsRoute,
  createPlatformAccountRoute,
  getPlatformAccountRoute,
  editPlatformAccountRoute,
  listOrganizationAccountsRoute,
  editOrganizationAccountRoute,
  getCardProviderStatusRoute,
  setupCardProviderRoute,
  cardProviderCommandRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const cardProviderSchemas: TSchema[] = [
  PlatformCardProviderAccount,
  OrganizationCardProviderAccount,
  CardProviderStatus,
];
