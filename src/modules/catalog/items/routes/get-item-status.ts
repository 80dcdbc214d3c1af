import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { ItemParams, ItemStatus } from '../items.schemas.ts';
import { itemStatus } from '../items.service.ts';

export const getItemStatusRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/items/:item_id/status',
    {
      config: { access: needs('items:read') },
      schema: {
        operationId: 'getItemStatus',
        tags: ['Items'],
        summary: 'What holds or held an item: claims, listings, requests, reservations, supply',
        description:
          'email_claim_ids and listing_ids: every email claim and listing that ever reserved the item, oldest first; mint_request_ids and transfer_request_ids: its requests, oldest first; reservations: units held now by an active MINT or TRANSFER reservation; supply: minted units and max_supply (total is null until the item is locked).',
        params: ItemParams,
        response: { 200: ItemStatus },
      },
    },
    async (request) => itemStatus(ctx.db, principalOf(request), request.params.item_id),
  );
