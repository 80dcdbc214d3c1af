import type { OperationExample } from '../../../http/openapi-examples.ts';
import { ids, page } from '../../../http/openapi-story.ts';

const campaign = {
  id: ids.campaign,
  name: 'Genesis giveaway',
  email_from: 'Northwind Studios via Tokens',
  created_at: '2026-11-22T16:41:09.377Z',
};

/** A campaign whose claims may carry their own mail. */
export const marketingCampaignsExamples: Readonly<Record<string, OperationExample>> = {
  listMarketingCampaigns: { response: page([campaign]) },
  createMarketingCampaign: { request: { name: 'Genesis giveaway' }, response: campaign },
  getMarketingCampaign: { params: { campaign_id: ids.campaign }, response: campaign },
  editMarketingCampaign: {
    params: { campaign_id: ids.campaign },
    request: { email_from: 'Northwind Drops <drops@northwind.example>' },
    response: { ...campaign, email_from: 'Northwind Drops <drops@northwind.example>' },
  },
  deleteMarketingCampaign: { params: { campaign_id: ids.campaign } },
};
