import { Value } from '@sinclair/typebox/value';
import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import type { Deps } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { EmailIntegrationRow } from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError, type FieldError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { printable } from '../../../lib/text.ts';
import { parseMailbox } from '../../../providers/mail/address.ts';
import type { IntegrationSettings } from '../../../providers/mail/transport.ts';
import { recordIntegrationFailure, renderMail } from '../mail/mail.service.ts';
import { findOrganization } from '../organizations/organizations.service.ts';
import * as repo from './email-integrations.repository.ts';
import {
  type CreateEmailIntegrationBody,
  type EditEmailIntegrationBody,
  type EmailIntegration,
  type EmailProvider,
  PROVIDER_CONFIGS,
} from './email-integrations.schemas.ts';

/** The wire shape: config as stored, which never holds the secret (it is `secret_encrypted`). */
export function toEmailIntegration(row: EmailIntegrationRow): EmailIntegration {
  return {
    id: row.id,
    organization_id: row.organization_id,
    provider: row.provider,
    config: row.config,
    active: row.active,
    last_error: row.last_error,
    last_error_at: iso(row.last_error_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export async function getEmailIntegration(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<EmailIntegrationRow> {
  const row = await repo.findEmailIntegration(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'email integration not found');
  assertOrganizationAccess(principal, row.organization_id, 'email integration');
  return row;
}

/**
 * Without organization_id a platform admin lists every organization's integrations; anyone else
 * lists their own organization's (another organization's id gives an empty page).
 */
export function listEmailIntegrations(
  db: Executor,
  principal: Principal,
  page: PageParams,
  filters: { organizationId: string | undefined; provider: EmailProvider | undefined },
): Promise<PageResult<EmailIntegrationRow>> {
  if (!isPlatformAdmin(principal)) {
    if (filters.organizationId !== undefined && filters.organizationId !== principal.organizationId) {
      return Promise.resolve({ results: [], cursor: null, has_more: false, total_results: 0 });
    }
    return repo.listEmailIntegrations(db, page, { ...filters, organizationId: principal.organizationId });
  }
  return repo.listEmailIntegrations(db, page, filters);
}

/**
 * One per organization (docs/api.md#email-integrations): a second is 409 EMAIL_INTEGRATION_EXISTS, decided
 * by the unique index so two concurrent creates cannot both succeed. CUSTOM_SMTP starts inactive
 * until a platform admin activates it ("activated by contacting support"); the others are active.
 */
export async function createEmailIntegration(
  db: Executor,
  deps: Pick<Deps, 'keyring'>,
  principal: Principal,
  body: CreateEmailIntegrationBody,
): Promise<EmailIntegrationRow> {
  const organizationId = body.organization_id ?? principal.organizationId;
  if (organizationId !== principal.organizationId) {
    if (!isPlatformAdmin(principal))
      throw new ApiError('FORBIDDEN', 'only a platform admin may configure mail for another organization');
    if (!(await findOrganization(db, organizationId)))
      throw new ApiError('NOT_FOUND', 'organization not found');
  }
  const config = checkedConfig(body.provider, body.config);
  const row = await repo.insertEmailIntegration(db, {
    id: uuidv7(),
    organization_id: organizationId,
    provider: body.provider,
    ...splitSecret(deps, body.provider, config),
    active: body.provider !== 'CUSTOM_SMTP',
  });
  if (!row)
    throw new ApiError(
      'EMAIL_INTEGRATION_EXISTS',
      'the organization has an email integration already: delete it before creating another',
    );
  return row;
}

/**
 * PATCH: config fields merge into the current config (null removes an optional field; the
 * secret is kept unless given); the result is checked whole against the provider's config.
 * `active` is the platform's to set.
 */
export async function editEmailIntegration(
  db: Tx,
  deps: Pick<Deps, 'keyring'>,
  principal: Principal,
  id: string,
  body: EditEmailIntegrationBody,
): Promise<EmailIntegrationRow> {
  const current = await repo.findEmailIntegrationForUpdate(db, id);
  if (!current) throw new ApiError('NOT_FOUND', 'email integration not found');
  assertOrganizationAccess(principal, current.organization_id, 'email integration');
  if (body.active !== undefined && !isPlatformAdmin(principal))
    throw new ApiError('FORBIDDEN', 'only a platform admin may activate or deactivate an email integration');
  const { config: nested, active: _active, ...flat } = body;
  const topLevel = Object.entries(flat).filter(([, value]) => value !== undefined);
  if (nested !== undefined && topLevel.length > 0)
    throw new ApiError(
      'VALIDATION_FAILED',
      "give the config's fields at the top level or in config, not both",
      {
        fields: topLevel.map(([key]) => ({ path: `/${key}`, message: 'given beside config' })),
      },
    );
  const { secret } = PROVIDER_CONFIGS[current.provider];
  const merged: Record<string, unknown> = { ...current.config };
  if (current.secret_encrypted !== null) merged[secret] = deps.keyring.decrypt(current.secret_encrypted);
  for (const [key, value] of nested === undefined ? topLevel : Object.entries(nested)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const config = checkedConfig(current.provider, merged, nested === undefined ? '' : '/config');
  return repo.updateEmailIntegration(db, id, {
    ...splitSecret(deps, current.provider, config),
    active: body.active ?? (serverMoved(current, config, principal) ? false : current.active),
  });
}

/**
 * The platform activates a CUSTOM_SMTP integration after looking at its server; an organization
 * that points it at another server (host, port, TLS mode) is back to waiting for activation, so
 * the service never connects where the platform did not agree to.
 */
function serverMoved(
  current: EmailIntegrationRow,
  config: Record<string, unknown>,
  principal: Principal,
): boolean {
  if (current.provider !== 'CUSTOM_SMTP' || isPlatformAdmin(principal)) return false;
  return ['host', 'port', 'secure'].some((key) => current.config[key] !== config[key]);
}

export async function deleteEmailIntegration(db: Tx, principal: Principal, id: string): Promise<void> {
  const row = await repo.findEmailIntegrationForUpdate(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'email integration not found');
  assertOrganizationAccess(principal, row.organization_id, 'email integration');
  await repo.deleteEmailIntegration(db, id);
}

/**
 * Sends a USER_TEST mail through the integration at once and outside any transaction: the
 * provider's refusal is 502 UPSTREAM_FAILED with its reason, and becomes the integration's
 * last_error. An inactive integration only by a platform admin (trying a CUSTOM_SMTP server
 * before activating it).
 */
export async function testEmailIntegration(
  db: Executor,
  deps: Pick<Deps, 'keyring' | 'mail'>,
  principal: Principal,
  id: string,
  to: string,
): Promise<void> {
  const row = await getEmailIntegration(db, principal, id);
  // An inactive integration's server is not vetted yet (CUSTOM_SMTP): only the platform connects to it.
  if (!row.active && !isPlatformAdmin(principal))
    throw new ApiError('FORBIDDEN', 'an inactive email integration is tested by a platform admin');
  const organization = await findOrganization(db, row.organization_id);
  // The organization's own USER_TEST template when it has one, else the default.
  const { subject, html, text } = await renderMail(db, {
    organizationId: row.organization_id,
    campaignId: null,
    templateType: 'USER_TEST',
    variables: { organization_name: organization?.name ?? '' },
  });
  const route = deps.mail.forIntegration(settingsOf(deps, row));
  const mailId = uuidv7();
  try {
    await route.transport.send({
      id: mailId,
      from: route.from,
      replyTo: route.replyTo,
      to,
      subject,
      html,
      text,
      messageId: `<${mailId}@token-issuance-service>`,
    });
  } catch (error) {
    const reason = printable(error instanceof Error ? error.message : String(error));
    await recordIntegrationFailure(db, row.id, reason);
    throw new ApiError('UPSTREAM_FAILED', `the mail provider did not take the test mail: ${reason}`);
  } finally {
    await route.transport.close();
  }
}

/** The integration as the transports take it, its secret decrypted. */
export function settingsOf(deps: Pick<Deps, 'keyring'>, row: EmailIntegrationRow): IntegrationSettings {
  return {
    id: row.id,
    provider: row.provider,
    config: row.config,
    secret: row.secret_encrypted === null ? null : deps.keyring.decrypt(row.secret_encrypted),
  };
}

/** The provider's config shape (unknown fields refused) plus what a schema cannot say; 400 with fields. */
function checkedConfig(
  provider: EmailProvider,
  config: Record<string, unknown>,
  at = '/config',
): Record<string, unknown> {
  const { schema } = PROVIDER_CONFIGS[provider];
  const fields: FieldError[] = [...Value.Errors(schema, config)].map((e) => ({
    path: `${at}${e.path}`,
    message: e.message,
  }));
  for (const key of ['email_from', 'email_reply_to']) {
    const value = config[key];
    if (typeof value === 'string' && !parseMailbox(value))
      fields.push({ path: `${at}/${key}`, message: 'must be an address or "Name <address>"' });
  }
  if (provider === 'CUSTOM_SMTP' && config.password != null && config.username == null)
    fields.push({ path: `${at}/username`, message: 'is required with a password' });
  if (fields.length > 0)
    throw new ApiError('VALIDATION_FAILED', `invalid ${provider} config`, { fields: dedupe(fields) });
  return config;
}

/** The first problem of each field: a missing string is not also "expected string". */
function dedupe(fields: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return fields.filter((f) => {
    if (seen.has(f.path)) return false;
    seen.add(f.path);
    return true;
  });
}

/** The secret field goes encrypted into its own column; the rest is the stored config. */
function splitSecret(
  deps: Pick<Deps, 'keyring'>,
  provider: EmailProvider,
  config: Record<string, unknown>,
): { config: Record<string, unknown>; secret_encrypted: string | null } {
  const { secret } = PROVIDER_CONFIGS[provider];
  const { [secret]: value, ...rest } = config;
  for (const [key, v] of Object.entries(rest)) if (v === null) delete rest[key];
  return { config: rest, secret_encrypted: typeof value === 'string' ? deps.keyring.encrypt(value) : null };
}
