import { sql } from 'kysely';
import type { Executor } from '../../../db/executor.ts';
import type { EmailTemplateRow, TemplateType } from '../../../db/schema.ts';

import type { TemplateScope } from '../mail/mail.service.ts';

function inScope(db: Executor, scope: TemplateScope) {
  const query = db
    .selectFrom('email_templates')
    .selectAll()
    .where('organization_id', '=', scope.organizationId);
  return scope.campaignId === null
    ? query.where('campaign_id', 'is', null)
    : query.where('campaign_id', '=', scope.campaignId);
}

export function findTemplate(
  db: Executor,
  scope: TemplateScope,
  type: TemplateType,
): Promise<EmailTemplateRow | undefined> {
  return inScope(db, scope).where('template_type', '=', type).executeTakeFirst();
}

export function listTemplates(db: Executor, scope: TemplateScope): Promise<EmailTemplateRow[]> {
  return inScope(db, scope).execute();
}

export function insertTemplate(
  db: Executor,
  row: {
    id: string;
    organization_id: string;
    campaign_id: string | null;
    template_type: TemplateType;
    subject: string;
    html: string;
    editor_embed_design_json: unknown;
  },
): Promise<EmailTemplateRow> {
  return db
    .insertInto('email_templates')
    .values({ ...row, editor_embed_design_json: jsonOrNull(row.editor_embed_design_json) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateTemplate(
  db: Executor,
  id: string,
  patch: { subject: string; html: string; editor_embed_design_json?: unknown },
): Promise<EmailTemplateRow> {
  return db
    .updateTable('email_templates')
    .set({
      subject: patch.subject,
      html: patch.html,
      ...(patch.editor_embed_design_json !== undefined && {
        editor_embed_design_json: jsonOrNull(patch.editor_embed_design_json),
      }),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteTemplate(db: Executor, scope: TemplateScope, type: TemplateType): Promise<void> {
  let query = db
    .deleteFrom('email_templates')
    .where('organization_id', '=', scope.organizationId)
    .where('template_type', '=', type);
  query =
    scope.campaignId === null
      ? query.where('campaign_id', 'is', null)
      : query.where('campaign_id', '=', scope.campaignId);
  await query.execute();
}

function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
