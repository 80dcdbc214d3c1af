import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import {
  EmailTemplate,
  TemplateBody,
  TemplateScopeQuery,
  TemplateTypeParams,
} from '../email-templates.schemas.ts';
import { createTemplate } from '../email-templates.service.ts';

export const createEmailTemplateRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/email-templates/:template_type',
    {
      config: { access: needs('email_templates:write') },
      schema: {
        operationId: 'createEmailTemplate',
        tags: ['Email templates'],
        summary: "Create the organization's (or a campaign's) own version of a template type",
        description:
          'subject and html are Handlebars templates (GET …/variables lists the values they get). Values are HTML-escaped in html ({{{…}}} is refused); only the built-in if, unless, each and with helpers exist; partials and decorators are refused. A template that does not compile or render is 400 VALIDATION_FAILED naming the error under /subject or /html. 409 ALREADY_EXISTS when the organization (or the campaign) already has its version: PATCH changes it.',
        params: TemplateTypeParams,
        querystring: TemplateScopeQuery,
        body: TemplateBody,
        response: { 201: Type.Ref(EmailTemplate), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const template = await ctx.db
        .transaction()
        .execute((tx) =>
          createTemplate(
            tx,
            principalOf(request),
            request.params.template_type,
            request.query.campaign_id,
            request.body,
          ),
        );
      return reply.code(201).send(template);
    },
  );
