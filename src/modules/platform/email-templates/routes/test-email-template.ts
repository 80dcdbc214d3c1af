import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import {
  TemplateScopeQuery,
  TemplateTypeParams,
  TestTemplateBody,
  TestTemplateResult,
} from '../email-templates.schemas.ts';
import { sendTestMail } from '../email-templates.service.ts';

export const testEmailTemplateRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/email-templates/:template_type/test',
    {
      config: { access: needs('email_templates:write') },
      schema: {
        operationId: 'testEmailTemplate',
        tags: ['Email templates'],
        summary: 'Mail a template, rendered with the given values, to the caller',
        description:
          "Renders subject and html (checked as on create: 400) with the given variables' values, the example values of GET …/variables for the rest, and sends the mail to the caller's address now, through the organization's mail transport (with campaign_id: from the campaign's email_from). 200 {delivered: true, to} once the provider took it; 502 UPSTREAM_FAILED with the provider's reason when it refused. Nothing is stored but the outbox record of the message.",
        params: TemplateTypeParams,
        querystring: TemplateScopeQuery,
        body: TestTemplateBody,
        response: { 200: TestTemplateResult, ...errorResponses(502) },
      },
    },
    // No transaction: the provider call must not hold a connection or locks (ARCHITECTURE.md).
    async (request) =>
      sendTestMail(
        ctx.db,
        ctx,
        principalOf(request),
        request.params.template_type,
        request.query.campaign_id,
        request.body,
      ),
  );
