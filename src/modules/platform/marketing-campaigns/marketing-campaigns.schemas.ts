import { type Static, Type } from '@sinclair/typebox';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, Nullable, Uuid } from '../../../http/schemas.ts';

const CampaignName = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\x00-\\x1f\\x7f]*$' });
/** A sender: a display name (`Acme`) or `Name <address>` (or a bare address); one header line. */
export const EmailFrom = Type.String({
  minLength: 1,
  maxLength: 320,
  pattern: '^[^\\x00-\\x1f\\x7f]*$',
  description:
    'A display name ("Acme Drops", sent from the platform\'s address) or "Name <address@example.com>"; no line breaks',
});

export const MarketingCampaign = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    email_from: Type.String(),
    created_at: DateTime,
  },
  { $id: 'MarketingCampaign', title: 'MarketingCampaign' },
);
export type MarketingCampaign = Static<typeof MarketingCampaign>;

export const ListMarketingCampaignsQuery = Type.Object(
  {
    ...listQueryProperties('standard'),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Exact name' })),
    organization_id: Type.Optional({
      ...Uuid,
      description: "Platform admins only: another organization's campaigns (default the caller's)",
    }),
  },
  { additionalProperties: false },
);

export const CreateMarketingCampaignBody = Type.Object(
  {
    name: CampaignName,
    email_from: Type.Optional(EmailFrom),
    organization_id: Type.Optional(
      Nullable({ ...Uuid, description: "Platform admins only; default the caller's organization" }),
    ),
  },
  { additionalProperties: false },
);
export type CreateMarketingCampaignBody = Static<typeof CreateMarketingCampaignBody>;

export const EditMarketingCampaignBody = Type.Object(
  {
    name: Type.Optional(CampaignName),
    email_from: Type.Optional(
      Nullable({ ...EmailFrom, description: `${EmailFrom.description}; null restores the default` }),
    ),
  },
  { additionalProperties: false },
);
export type EditMarketingCampaignBody = Static<typeof EditMarketingCampaignBody>;

export const MarketingCampaignParams = Type.Object({ campaign_id: Uuid }, { additionalProperties: false });
