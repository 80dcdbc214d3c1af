import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { CreateMarketingCampaignBody, MarketingCampaign } from '../marketing-campaigns.schemas.ts';
import { createCampaign, toMarketingCampaign } from '../marketing-campaigns.service.ts';

export const createMarketingCampaignRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/marketing-campaigns',
    {
      config: { access: needs('marketing_campaigns:write') },
      schema: {
        operationId: 'createMarketingCampaign',
        tags: ['Marketing campaigns'],
        summary: 'Create a marketing campaign',
        description:
          'name is unique in the organization (409 ALREADY_EXISTS). email_from, the sender of the campaign\'s mail, defaults to "<organization name> via <PLATFORM_NAME>"; it is a display name (sent from the platform\'s or the integration\'s address) or "Name <address>", without line breaks. organization_id may name another organization for platform admins only (403 otherwise).',
        body: CreateMarketingCampaignBody,
        response: { 201: Type.Ref(MarketingCampaign), ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) => createCampaign(tx, ctx, principalOf(request), request.body));
      return reply.code(201).send(toMarketingCampaign(row));
    },
  );
