import type { TSchema } from '@sinclair/typebox';
import type { RouteModule } from '../../../../http/types.ts';
import { MarketingCampaign } from '../marketing-campaigns.schemas.ts';
import { createMarketingCampaignRoute } from './create-marketing-campaign.ts';
import { deleteMarketingCampaignRoute } from './delete-marketing-campaign.ts';
import { editMarketingCampaignRoute } from './edit-marketing-campaign.ts';
import { getMarketingCampaignRoute } from './get-marketing-campaign.ts';
import { listMarketingCampaignsRoute } from './list-marketing-campaigns.ts';

export const marketingCampaignRoutes: RouteModule[] = [
  listMarketingCampaignsRoute,
  createMarketingCampaignRoute,
  getMarketingCampaignRoute,
  editMarketingCampaignRoute,
  deleteMarketingCampaignRoute,
];

/** Schemas with an `$id` the routes reference (Type.Ref): registered once, named in OpenAPI. */
export const marketingCampaignSchemas: TSchema[] = [MarketingCampaign];
