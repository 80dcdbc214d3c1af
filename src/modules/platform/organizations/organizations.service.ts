import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import type { Deps } from '../../../context.ts';
import { isUniqueViolation } from '../../../db/errors.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { OrganizationRow, OrganizationUpdate } from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { unknownNetworkIds } from '../networks/networks.service.ts';
import { createOrganizationWallet } from '../wallets/wallets.service.ts';
import * as repo from './organizations.repository.ts';
import type {
  CreateOrganizationBody,
  EditOrganizationBody,
  EditPayoutConfigBody,
  Organization,
  PayoutConfig,
} from './organizations.schemas.ts';

/** The columns an organization is shown with. */
export const ORGANIZATION_SHOWN_COLUMNS = [
  'id',
  'name',
  'is_enabled',
  'mfa_required',
  'network_ids',
  'card_provider_connect_types',
  'identity_provider_id',
  'auto_fund',
  'domain',
  'hardware_wallet',
  'payout_address',
  'platform_sale_fee',
  'created_at',
] as const satisfies readonly (keyof OrganizationRow)[];

export function toOrganization(
  row: Pick<OrganizationRow, (typeof ORGANIZATION_SHOWN_COLUMNS)[number]>,
): Organization {
  return {
    id: row.id,
    name: row.name,
    is_enabled: row.is_enabled,
    mfa_required: row.mfa_required,
    network_ids: row.network_ids,
    card_provider_connect_types: row.card_provider_connect_types,
    identity_provider_id: row.identity_provider_id,
    auto_fund: row.auto_fund,
    domain: row.domain,
    hardware_wallet: row.hardware_wallet,
    payout_address: row.payout_address,
    platform_sale_fee: row.platform_sale_fee,
    created_at: iso(row.created_at),
  };
}

export function findOrganization(db: Executor, id: string): Promise<OrganizationRow | undefined> {
  return repo.findOrganization(db, id);
}

export async function getOrganization(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<OrganizationRow> {
  assertOrganizationAccess(principal, id, 'organization');
  const row = await repo.findOrganization(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'organization not found');
  return row;
}

export function listOrganizations(
  db: Executor,
  principal: Principal,
  page: PageParams,
): Promise<PageResult<OrganizationRow>> {
  return repo.listOrganizations(db, page, isPlatformAdmin(principal) ? undefined : principal.organizationId);
}

/** Creates the organization and its signing wallet, in the caller's transaction. */
export async function createOrganization(
  db: Executor,
  deps: Pick<Deps, 'keyring'>,
  body: CreateOrganizationBody,
): Promise<OrganizationRow> {
  const organization = await insertUniquelyNamed(body.name, () =>
    repo.insertOrganization(db, {
      id: uuidv7(),
      name: body.name,
      auto_fund: body.auto_fund ?? false,
      domain: body.domain ?? null,
      hardware_wallet: body.hardware_wallet ?? false,
      mfa_required: body.mfa_required ?? false,
      platform_sale_fee: body.platform_sale_fee ?? 0,
    }),
  );
  await createOrganizationWallet(db, deps.keyring, organization.id);
  return organization;
}

/** Fields an organization admin may change on its own organization; the rest are the platform's. */
const ORG_ADMIN_EDITABLE = new Set<keyof EditOrganizationBody>(['mfa_required', 'payout_address']);
/** Nullable columns: null clears them, so null is a change; elsewhere null leaves the field as it is. */
const NULL_CLEARS = new Set<keyof EditOrganizationBody>(['identity_provider_id', 'domain', 'payout_address']);

export async function editOrganization(
  db: Executor,
  principal: Principal,
  id: string,
  body: EditOrganizationBody,
): Promise<OrganizationRow> {
  const current = await getOrganization(db, principal, id);
  if (!isPlatformAdmin(principal)) {
    // A null that leaves a field as it is changes nothing, as on PATCH …/payout-config.
    const denied = (Object.keys(body) as (keyof EditOrganizationBody)[]).filter(
      (k) => !ORG_ADMIN_EDITABLE.has(k) && (body[k] !== null || NULL_CLEARS.has(k)),
    );
    if (denied.length > 0) {
      throw new ApiError('FORBIDDEN', `only a platform admin may change ${denied.join(', ')}`);
    }
  }
  if (body.is_enabled === false && principal.organizationId === id) {
    throw new ApiError('INVALID_STATE', 'an admin cannot disable its own organization');
  }
  const patch: OrganizationUpdate = {};
  if (body.name != null) patch.name = body.name;
  if (body.is_enabled != null) patch.is_enabled = body.is_enabled;
  if (body.mfa_required != null) patch.mfa_required = body.mfa_required;
  if (body.network_ids != null) {
    const unknown = await unknownNetworkIds(db, body.network_ids);
    if (unknown.length > 0) {
      throw new ApiError('VALIDATION_FAILED', `no network is registered with id ${unknown.join(', ')}`, {
        fields: [{ path: '/network_ids', message: `unknown network ${unknown.join(', ')}` }],
      });
    }
    patch.network_ids = body.network_ids;
  }
  if (body.card_provider_connect_types != null)
    patch.card_provider_connect_types = body.card_provider_connect_types;
  if (body.identity_provider_id !== undefined) patch.identity_provider_id = body.identity_provider_id;
  if (body.auto_fund != null) patch.auto_fund = body.auto_fund;
  if (body.domain !== undefined) patch.domain = body.domain;
  if (body.hardware_wallet != null) patch.hardware_wallet = body.hardware_wallet;
  if (body.platform_sale_fee != null) patch.platform_sale_fee = body.platform_sale_fee;
  if (body.payout_address !== undefined) patch.payout_address = checkedPayoutAddress(body.payout_address);
  if (Object.keys(patch).length === 0) return current;
  const update = () => repo.updateOrganization(db, id, patch);
  return patch.name !== undefined ? insertUniquelyNamed(patch.name, update) : update();
}

export function toPayoutConfig(row: OrganizationRow): PayoutConfig {
  return { payout_address: row.payout_address, platform_sale_fee: row.platform_sale_fee };
}

export async function editPayoutConfig(
  db: Executor,
  principal: Principal,
  id: string,
  body: EditPayoutConfigBody,
): Promise<OrganizationRow> {
  // Another organization is NOT_FOUND before any permission check, so a 403 never reveals it.
  assertOrganizationAccess(principal, id, 'organization');
  // The platform's fee is the platform's to set; the payout address is the organization's.
  if (body.platform_sale_fee != null && !isPlatformAdmin(principal)) {
    throw new ApiError('FORBIDDEN', 'only a platform admin may change platform_sale_fee');
  }
  return editOrganization(db, principal, id, {
    ...(body.payout_address !== undefined && { payout_address: body.payout_address }),
    ...(body.platform_sale_fee != null && { platform_sale_fee: body.platform_sale_fee }),
  });
}

function checkedPayoutAddress(input: string | null): string | null {
  return input === null ? null : checkedAddress(input, '/payout_address');
}

async function insertUniquelyNamed<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, 'organizations_name_key')) {
      throw new ApiError('ALREADY_EXISTS', `an organization named "${name}" already exists`);
    }
    throw error;
  }
}

/**
 * Adds a network to the organization's network_ids, with auto_fund on (its wallet is topped up
 * from the platform wallet there); an organization that has the network already is left as it is.
 */
export async function allowNetworkWithAutoFund(
  db: Tx,
  organizationId: string,
  networkId: number,
): Promise<void> {
  const organization = await repo.findOrganizationForUpdate(db, organizationId);
  if (organization && !organization.network_ids.includes(networkId)) {
    await repo.updateOrganization(db, organizationId, {
      network_ids: [...organization.network_ids, networkId],
      auto_fund: true,
    });
  }
}
