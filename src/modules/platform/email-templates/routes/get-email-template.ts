import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailTemplate, TemplateScopeQuery, TemplateTypeParams } from '../email-templates.schemas.ts';
import { getTemplate } from '../email-templates.service.ts';

export const getEmailTemplateRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/email-templates/:template_type',
    {
      config: { access: needs('email_templates:read') },
      schema: {
        operationId: 'getEmailTemplate',
        tags: ['Email templates'],
        summary: 'Get a template as the organization (or the campaign) sends it',
        description:
          "The organization's own version (ORGANIZATION_CUSTOM) or the platform default (PLATFORM_DEFAULT). With campaign_id (REDEEM_NFT, CLAIM_PINCODE, CLAIMED_NFT only; 400 otherwise): the campaign's version, else the one its mail falls back to.",
        params: TemplateTypeParams,
        querystring: TemplateScopeQuery,
        response: { 200: Type.Ref(EmailTemplate) },
      },
    },
    async (request) =>
      getTemplate(ctx.db, principalOf(request), request.params.template_type, request.query.campaign_id),
  );
