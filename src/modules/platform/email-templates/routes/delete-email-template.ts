import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { TemplateScopeQuery, TemplateTypeParams } from '../email-templates.schemas.ts';
import { deleteTemplate } from '../email-templates.service.ts';

export const deleteEmailTemplateRoute: RouteModule = (app, ctx) =>
  app.delete(
    '/v1/email-templates/:template_type',
    {
      config: { access: needs('email_templates:write') },
      schema: {
        operationId: 'deleteEmailTemplate',
        tags: ['Email templates'],
        summary: 'Revert a template type to the platform default',
        description:
          "Deletes the organization's own version (with campaign_id: the campaign's, whose mail then falls back to the organization's version, else the default). 204 also when there was none.",
        params: TemplateTypeParams,
        querystring: TemplateScopeQuery,
        response: { 204: Type.Null({ description: 'Reverted' }) },
      },
    },
    async (request, reply) => {
      await ctx.db
        .transaction()
        .execute((tx) =>
          deleteTemplate(tx, principalOf(request), request.params.template_type, request.query.campaign_id),
        );
      return reply.code(204).send(null);
    },
  );
