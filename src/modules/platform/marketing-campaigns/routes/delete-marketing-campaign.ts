import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { MarketingCampaignParams } from '../marketing-campaigns.schemas.ts';
import { deleteCampaign } from '../marketing-campaigns.service.ts';

export const deleteMarketingCampaignRoute: RouteModule = (app, ctx) =>
  app.delete(
    '/v1/marketing-campaigns/:campaign_id',
    {
      config: { access: needs('marketing_campaigns:write') },
      schema: {
        operationId: 'deleteMarketingCampaign',
        tags: ['Marketing campaigns'],
        summary: 'Delete a marketing campaign and its templates',
        description:
          "The campaign's own templates are deleted with it. Email claims that used it keep working: their campaign_id becomes null and their mail uses the organization's templates, else the platform defaults.",
        params: MarketingCampaignParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      await ctx.db
        .transaction()
        .execute((tx) => deleteCampaign(tx, principalOf(request), request.params.campaign_id));
      return reply.code(204).send(null);
    },
  );
