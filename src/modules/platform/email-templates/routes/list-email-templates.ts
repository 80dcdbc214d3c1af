import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailTemplate, ListTemplatesQuery } from '../email-templates.schemas.ts';
import { listTemplates } from '../email-templates.service.ts';

export const listEmailTemplatesRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/email-templates',
    {
      config: { access: needs('email_templates:read') },
      schema: {
        operationId: 'listEmailTemplates',
        tags: ['Email templates'],
        summary: 'List every template type as the organization sends it',
        description:
          "All six types in a fixed order, each the organization's own version (origin_type ORGANIZATION_CUSTOM) or the platform default (PLATFORM_DEFAULT). With campaign_id: the three types a campaign may have (REDEEM_NFT, CLAIM_PINCODE, CLAIMED_NFT) as the campaign's mail uses them: its own version, else the organization's, else the default; another organization's campaign is 404.",
        querystring: ListTemplatesQuery,
        response: { 200: Page(Type.Ref(EmailTemplate), 'EmailTemplatePage') },
      },
    },
    async (request) => {
      const { campaign_id, ...page } = request.query;
      return listTemplates(ctx.db, principalOf(request), page, campaign_id);
    },
  );
