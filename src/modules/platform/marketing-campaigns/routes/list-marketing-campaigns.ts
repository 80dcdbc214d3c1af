import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ListMarketingCampaignsQuery, MarketingCampaign } from '../marketing-campaigns.schemas.ts';
import { listCampaigns, toMarketingCampaign } from '../marketing-campaigns.service.ts';

export const listMarketingCampaignsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/marketing-campaigns',
    {
      config: { access: needs('marketing_campaigns:read') },
      schema: {
        operationId: 'listMarketingCampaigns',
        tags: ['Marketing campaigns'],
        summary: "List the organization's marketing campaigns",
        description:
          "In creation order (order_direction); name filters by exact name. organization_id lets a platform admin list another organization's campaigns (anyone else gets an empty page).",
        querystring: ListMarketingCampaignsQuery,
        response: { 200: Page(Type.Ref(MarketingCampaign), 'MarketingCampaignPage') },
      },
    },
    async (request) => {
      const { name, organization_id, ...page } = request.query;
      const result = await listCampaigns(ctx.db, principalOf(request), page, {
        name,
        organizationId: organization_id,
      });
      return { ...result, results: result.results.map(toMarketingCampaign) };
    },
  );
