import type { Principal } from '../../../access/principal.ts';
import type { Deps } from '../../../context.ts';
import { isUniqueViolation } from '../../../db/errors.ts';
import type { Executor } from '../../../db/executor.ts';
import type { EmailTemplateRow, TemplateType } from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { paginateStatic } from '../../../http/static-pagination.ts';
import { ApiError, type FieldError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { printable } from '../../../lib/text.ts';
import { storedTemplateForMail, type TemplateScope } from '../mail/mail.service.ts';
import { sendMailNow } from '../mail/mail-delivery.service.ts';
import {
  defaultTemplate,
  renderTemplate,
  TEMPLATE_TYPES,
  TEMPLATE_VARIABLES,
  templateProblems,
} from '../mail/templates.ts';
import { getCampaign } from '../marketing-campaigns/marketing-campaigns.service.ts';
import { findOrganization } from '../organizations/organizations.service.ts';
import * as repo from './email-templates.repository.ts';
import {
  type EmailTemplate,
  MAX_DESIGN_JSON_BYTES,
  type TemplateBody,
  type TemplateVariable,
  type TestTemplateBody,
} from './email-templates.schemas.ts';

/** The types a campaign may have its own version of (docs/api.md#templates): the mail of email claims. */
export const CAMPAIGN_TEMPLATE_TYPES: readonly TemplateType[] = [
  'REDEEM_NFT',
  'CLAIM_PINCODE',
  'CLAIMED_NFT',
];

export type { TemplateScope } from '../mail/mail.service.ts';

/**
 * Whose templates a request addresses: the caller's organization's, or with campaign_id that
 * campaign's own (another organization's campaign is 404, as the campaign itself is). `type`,
 * when given, must be one a campaign may have.
 */
export async function scopeOf(
  db: Executor,
  principal: Principal,
  campaignId: string | undefined,
  type?: TemplateType,
): Promise<TemplateScope> {
  if (campaignId === undefined) return { organizationId: principal.organizationId, campaignId: null };
  if (type !== undefined && !CAMPAIGN_TEMPLATE_TYPES.includes(type)) {
    throw new ApiError('VALIDATION_FAILED', `a campaign has no ${type} template of its own`, {
      fields: [
        {
          path: 'querystring:/campaign_id',
          message: `campaigns have their own ${CAMPAIGN_TEMPLATE_TYPES.join(', ')} templates only`,
        },
      ],
    });
  }
  const campaign = await getCampaign(db, principal, campaignId);
  return { organizationId: campaign.organization_id, campaignId: campaign.id };
}

function toEmailTemplate(type: TemplateType, row: EmailTemplateRow | undefined): EmailTemplate {
  if (!row) {
    const source = defaultTemplate(type);
    return {
      template_type: type,
      subject: source.subject,
      html: source.html,
      origin_type: 'PLATFORM_DEFAULT',
      editor_embed_design_json: null,
    };
  }
  return {
    template_type: type,
    subject: row.subject,
    html: row.html,
    origin_type: 'ORGANIZATION_CUSTOM',
    editor_embed_design_json: row.editor_embed_design_json,
  };
}

/** What the scope's mail of the type looks like: for a campaign, its version or the fallback. */
async function effectiveTemplate(
  db: Executor,
  scope: TemplateScope,
  type: TemplateType,
): Promise<EmailTemplate> {
  return toEmailTemplate(type, await storedTemplateForMail(db, scope, type));
}

/** Every type (a campaign: its three), in the order of TEMPLATE_TYPES, as its mail is rendered. */
export async function listTemplates(
  db: Executor,
  principal: Principal,
  page: PageParams,
  campaignId: string | undefined,
): Promise<PageResult<EmailTemplate>> {
  const scope = await scopeOf(db, principal, campaignId);
  const types = scope.campaignId === null ? TEMPLATE_TYPES : CAMPAIGN_TEMPLATE_TYPES;
  const templates = await Promise.all(types.map((type) => effectiveTemplate(db, scope, type)));
  return paginateStatic(templates, {
    page,
    list: 'email-templates',
    filters: { campaign_id: scope.campaignId },
    key: (t) => String(TEMPLATE_TYPES.indexOf(t.template_type)),
  });
}

export async function getTemplate(
  db: Executor,
  principal: Principal,
  type: TemplateType,
  campaignId: string | undefined,
): Promise<EmailTemplate> {
  return effectiveTemplate(db, await scopeOf(db, principal, campaignId, type), type);
}

/** 400 naming what is wrong with a template before it is stored. */
function checkTemplate(
  type: TemplateType,
  body: Pick<TemplateBody, 'html' | 'subject' | 'editor_embed_design_json'>,
): void {
  const fields: FieldError[] = templateProblems(body, type);
  const design = body.editor_embed_design_json;
  if (
    design !== undefined &&
    design !== null &&
    Buffer.byteLength(JSON.stringify(design)) > MAX_DESIGN_JSON_BYTES
  ) {
    fields.push({
      path: '/editor_embed_design_json',
      message: `must be at most ${MAX_DESIGN_JSON_BYTES} bytes as JSON`,
    });
  }
  if (fields.length > 0) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `the template cannot be used: ${fields.map((f) => `${f.path.slice(1)}: ${f.message}`).join('; ')}`,
      { fields },
    );
  }
}

export async function createTemplate(
  db: Executor,
  principal: Principal,
  type: TemplateType,
  campaignId: string | undefined,
  body: TemplateBody,
): Promise<EmailTemplate> {
  const scope = await scopeOf(db, principal, campaignId, type);
  checkTemplate(type, body);
  try {
    const row = await repo.insertTemplate(db, {
      id: uuidv7(),
      organization_id: scope.organizationId,
      campaign_id: scope.campaignId,
      template_type: type,
      subject: body.subject,
      html: body.html,
      editor_embed_design_json: body.editor_embed_design_json ?? null,
    });
    return toEmailTemplate(type, row);
  } catch (error) {
    if (isUniqueViolation(error, 'email_templates_key')) {
      throw new ApiError(
        'ALREADY_EXISTS',
        `${scope.campaignId === null ? 'the organization' : 'the campaign'} already has its own ${type} template: PATCH changes it`,
      );
    }
    throw error;
  }
}

export async function editTemplate(
  db: Executor,
  principal: Principal,
  type: TemplateType,
  campaignId: string | undefined,
  body: TemplateBody,
): Promise<EmailTemplate> {
  const scope = await scopeOf(db, principal, campaignId, type);
  const current = await repo.findTemplate(db, scope, type);
  if (!current) {
    throw new ApiError(
      'NOT_FOUND',
      `${scope.campaignId === null ? 'the organization' : 'the campaign'} has no ${type} template of its own: POST creates one`,
    );
  }
  checkTemplate(type, body);
  return toEmailTemplate(type, await repo.updateTemplate(db, current.id, body));
}

/** Reverts to the default (for a campaign: to the organization's version, else the default). */
export async function deleteTemplate(
  db: Executor,
  principal: Principal,
  type: TemplateType,
  campaignId: string | undefined,
): Promise<void> {
  const scope = await scopeOf(db, principal, campaignId, type);
  await repo.deleteTemplate(db, scope, type);
}

async function exampleValues(
  db: Executor,
  scope: TemplateScope,
  type: TemplateType,
): Promise<Record<string, string>> {
  const values = { ...TEMPLATE_VARIABLES[type] };
  if ('organization_name' in values) {
    const organization = await findOrganization(db, scope.organizationId);
    if (organization) values.organization_name = organization.name;
  }
  return values;
}

export async function listVariables(
  db: Executor,
  principal: Principal,
  type: TemplateType,
  campaignId: string | undefined,
  page: PageParams,
): Promise<PageResult<TemplateVariable>> {
  const scope = await scopeOf(db, principal, campaignId, type);
  const values = await exampleValues(db, scope, type);
  const variables = Object.entries(values).map(([name, value], index) => ({
    index,
    variable: { name, template_type: type, default_value: value, value: null },
  }));
  const result = paginateStatic(variables, {
    page,
    list: 'email-template-variables',
    filters: { template_type: type, campaign_id: scope.campaignId },
    key: (v) => String(v.index).padStart(3, '0'),
  });
  return { ...result, results: result.results.map((v) => v.variable) };
}

/**
 * Renders the given template with the given values (the example values for the rest) and mails
 * it to the caller now, through the organization's transport: 502 UPSTREAM_FAILED with the
 * provider's reason when it refuses. Runs outside any transaction (it waits for the provider).
 */
export async function sendTestMail(
  db: Executor,
  deps: Deps,
  principal: Principal,
  type: TemplateType,
  campaignId: string | undefined,
  body: TestTemplateBody,
): Promise<{ delivered: true; to: string }> {
  const scope = await scopeOf(db, principal, campaignId, type);
  checkTemplate(type, body);
  const values = await exampleValues(db, scope, type);
  for (const variable of body.variables) {
    if (variable.value !== null && variable.value !== undefined)
      values[variable.name] = String(variable.value);
  }
  const rendered = renderTemplate({ subject: body.subject, html: body.html }, values);
  let sender: string | null = null;
  if (scope.campaignId !== null) sender = (await getCampaign(db, principal, scope.campaignId)).email_from;
  const result = await sendMailNow(db, deps, {
    organizationId: scope.organizationId,
    campaignId: scope.campaignId,
    sender,
    templateType: type,
    to: principal.email,
    ...rendered,
  });
  if (!result.ok) {
    const reason = printable(result.error instanceof Error ? result.error.message : String(result.error));
    throw new ApiError(
      'UPSTREAM_FAILED',
      `the mail provider did not take the test mail: ${reason.slice(0, 500)}`,
    );
  }
  return { delivered: true, to: principal.email };
}
