import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListTemplatesQuery, TemplateTypeParams, TemplateVariable } from '../email-templates.schemas.ts';
import { listVariables } from '../email-templates.service.ts';

export const listEmailTemplateVariablesRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/email-templates/:template_type/variables',
    {
      config: { access: needs('email_templates:read') },
      schema: {
        operationId: 'listEmailTemplateVariables',
        tags: ['Email templates'],
        summary: 'List the variables a template type is rendered with',
        description:
          "Each {name, template_type, default_value, value}: default_value is the example value previews and test mails use (organization_name: the organization's name); value is null (POST …/test takes values). USER_INVITE: organization_name, invite_url, email; FORGOT_PASSWORD_RESET: reset_url, email; REDEEM_NFT: claim_url, item_name, item_image, collection_name, organization_name, expiration; CLAIM_PINCODE: pin_code, item_name, expires_in_minutes; CLAIMED_NFT: item_name, item_image, to_address, tx_hash, collection_name; USER_TEST: organization_name. The service may also pass organization_name and expires_at (invite, reset), which the defaults show when present.",
        params: TemplateTypeParams,
        querystring: ListTemplatesQuery,
        response: { 200: Page(Type.Ref(TemplateVariable), 'EmailTemplateVariablePage') },
      },
    },
    async (request) => {
      const { campaign_id, ...page } = request.query;
      return listVariables(ctx.db, principalOf(request), request.params.template_type, campaign_id, page);
    },
  );
