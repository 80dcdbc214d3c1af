import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import {
  EditMarketingCampaignBody,
  MarketingCampaign,
  MarketingCampaignParams,
} from '../marketing-campaigns.schemas.ts';
import { editCampaign, toMarketingCampaign } from '../marketing-campaigns.service.ts';

export const editMarketingCampaignRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/marketing-campaigns/:campaign_id',
    {
      config: { access: needs('marketing_campaigns:write') },
      schema: {
        operationId: 'editMarketingCampaign',
        tags: ['Marketing campaigns'],
        summary: "Edit a marketing campaign's name or email_from",
        description:
          'Fields left out stay as they are; email_from null restores the default. A name another campaign of the organization has is 409 ALREADY_EXISTS. Mail already queued keeps the sender it was queued with.',
        params: MarketingCampaignParams,
        body: EditMarketingCampaignBody,
        response: { 200: Type.Ref(MarketingCampaign), ...errorResponses(409) },
      },
    },
    async (request) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) =>
          editCampaign(tx, ctx, principalOf(request), request.params.campaign_id, request.body),
        );
      return toMarketingCampaign(row);
    },
  );
