import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { MarketingCampaign, MarketingCampaignParams } from '../marketing-campaigns.schemas.ts';
import { getCampaign, toMarketingCampaign } from '../marketing-campaigns.service.ts';

export const getMarketingCampaignRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/marketing-campaigns/:campaign_id',
    {
      config: { access: needs('marketing_campaigns:read') },
      schema: {
        operationId: 'getMarketingCampaign',
        tags: ['Marketing campaigns'],
        summary: 'Get a marketing campaign',
        params: MarketingCampaignParams,
        response: { 200: Type.Ref(MarketingCampaign) },
      },
    },
    async (request) =>
      toMarketingCampaign(await getCampaign(ctx.db, principalOf(request), request.params.campaign_id)),
  );
