import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import {
  EmailTemplate,
  TemplateBody,
  TemplateScopeQuery,
  TemplateTypeParams,
} from '../email-templates.schemas.ts';
import { editTemplate } from '../email-templates.service.ts';

export const editEmailTemplateRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/email-templates/:template_type',
    {
      config: { access: needs('email_templates:write') },
      schema: {
        operationId: 'editEmailTemplate',
        tags: ['Email templates'],
        summary: "Change the organization's (or a campaign's) own version of a template type",
        description:
          'html and subject are required and checked as on create (400); editor_embed_design_json left out stays as it is. 404 when there is no own version yet (POST creates it).',
        params: TemplateTypeParams,
        querystring: TemplateScopeQuery,
        body: TemplateBody,
        response: { 200: Type.Ref(EmailTemplate) },
      },
    },
    async (request) =>
      ctx.db
        .transaction()
        .execute((tx) =>
          editTemplate(
            tx,
            principalOf(request),
            request.params.template_type,
            request.query.campaign_id,
            request.body,
          ),
        ),
  );
