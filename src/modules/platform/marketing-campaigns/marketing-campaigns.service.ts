import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import { isUniqueViolation } from '../../../db/errors.ts';
import type { Executor } from '../../../db/executor.ts';
import type { MarketingCampaignRow } from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import type { Config } from '../../../lib/config.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { printable } from '../../../lib/text.ts';
import { parseDisplayName, parseMailbox } from '../../../providers/mail/address.ts';
import { findOrganization } from '../organizations/organizations.service.ts';
import * as repo from './marketing-campaigns.repository.ts';
import type {
  CreateMarketingCampaignBody,
  EditMarketingCampaignBody,
  MarketingCampaign,
} from './marketing-campaigns.schemas.ts';

export type { MarketingCampaignRow } from '../../../db/schema.ts';

const NAME_KEY = 'marketing_campaigns_name_key';

export function toMarketingCampaign(row: MarketingCampaignRow): MarketingCampaign {
  return { id: row.id, name: row.name, email_from: row.email_from, created_at: iso(row.created_at) };
}

/**
 * A campaign's sender: a display name (`Acme via Tokens`), an address, or `Name <address>`, read
 * by the same parser that writes it into the From header (providers/mail/address.ts), so what is
 * accepted here is what the mail carries. The schema already refuses control characters.
 */
export function normalizeEmailFrom(raw: string): string {
  const value = raw.trim();
  const invalid = (message: string) =>
    new ApiError('VALIDATION_FAILED', `email_from ${message}`, {
      fields: [{ path: '/email_from', message }],
    });
  if (value === '') throw invalid('must not be blank');
  if (/[<>@]/.test(value)) {
    if (parseMailbox(value) === undefined)
      throw invalid('must be a name, an address, or "Name <address>" with a valid address');
    return value;
  }
  if (parseDisplayName(value) === undefined) throw invalid('is not a usable sender name');
  return value;
}

/** `"<organization name> via <PLATFORM_NAME>"` (docs/api.md#marketing-campaigns). */
function defaultEmailFrom(organizationName: string, config: Pick<Config, 'platformName'>): string {
  return `${printable(organizationName.replace(/[<>]/g, ' '))} via ${config.platformName}`;
}

export function findCampaign(db: Executor, id: string): Promise<MarketingCampaignRow | undefined> {
  return repo.findCampaign(db, id);
}

export async function getCampaign(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<MarketingCampaignRow> {
  const row = await repo.findCampaign(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'marketing campaign not found');
  assertOrganizationAccess(principal, row.organization_id, 'marketing campaign');
  return row;
}

/**
 * The caller's organization's campaigns; a platform admin may name another organization
 * (anyone else naming one gets an empty page, never a hint that it exists).
 */
export function listCampaigns(
  db: Executor,
  principal: Principal,
  page: PageParams,
  filters: { name: string | undefined; organizationId: string | undefined },
): Promise<PageResult<MarketingCampaignRow>> {
  const organizationId = filters.organizationId ?? principal.organizationId;
  if (organizationId !== principal.organizationId && !isPlatformAdmin(principal)) {
    return Promise.resolve({ results: [], cursor: null, has_more: false, total_results: 0 });
  }
  return repo.listCampaigns(db, page, { organizationId, name: filters.name });
}

export async function createCampaign(
  db: Executor,
  deps: { config: Pick<Config, 'platformName'> },
  principal: Principal,
  body: CreateMarketingCampaignBody,
): Promise<MarketingCampaignRow> {
  const organizationId = body.organization_id ?? principal.organizationId;
  if (organizationId !== principal.organizationId && !isPlatformAdmin(principal)) {
    throw new ApiError('FORBIDDEN', 'only a platform admin may create campaigns for another organization');
  }
  const organization = await findOrganization(db, organizationId);
  if (!organization) throw new ApiError('NOT_FOUND', 'organization not found');
  const emailFrom =
    body.email_from === undefined
      ? defaultEmailFrom(organization.name, deps.config)
      : normalizeEmailFrom(body.email_from);
  try {
    return await repo.insertCampaign(db, {
      id: uuidv7(),
      organization_id: organizationId,
      name: body.name,
      email_from: emailFrom,
    });
  } catch (error) {
    throw nameTaken(error, body.name);
  }
}

export async function editCampaign(
  db: Executor,
  deps: { config: Pick<Config, 'platformName'> },
  principal: Principal,
  id: string,
  body: EditMarketingCampaignBody,
): Promise<MarketingCampaignRow> {
  const current = await getCampaign(db, principal, id);
  const patch: { name?: string; email_from?: string } = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.email_from === null) {
    const organization = await findOrganization(db, current.organization_id);
    patch.email_from = defaultEmailFrom(organization?.name ?? '', deps.config);
  } else if (body.email_from !== undefined) {
    patch.email_from = normalizeEmailFrom(body.email_from);
  }
  if (Object.keys(patch).length === 0) return current;
  try {
    return await repo.updateCampaign(db, id, patch);
  } catch (error) {
    throw nameTaken(error, body.name ?? current.name);
  }
}

/**
 * The campaign's templates are deleted with it; email claims that named it keep working on the
 * organization's or the default templates (their campaign_id becomes null).
 */
export async function deleteCampaign(db: Executor, principal: Principal, id: string): Promise<void> {
  await getCampaign(db, principal, id);
  await repo.deleteCampaign(db, id);
}

function nameTaken(error: unknown, name: string): unknown {
  return isUniqueViolation(error, NAME_KEY)
    ? new ApiError('ALREADY_EXISTS', `a marketing campaign named "${name}" already exists`)
    : error;
}
