import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { CreateListingBody, Listing } from '../listings.schemas.ts';
import { createListing } from '../listings.service.ts';

export const createListingRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/listings',
    {
      config: { access: needs('listings:write') },
      schema: {
        operationId: 'createListing',
        tags: ['Listings'],
        summary: 'List items for sale',
        description: [
          'Exactly one selector (400 INVALID_SELECTION): item_id (item-level, ERC721 or ERC1155), or item_ids, collection_id, collection_id + token_ids, collection_id + token_ranges (collection-level, ERC721 only, one unit per item).',
          'Listed items must be locked (409 ITEM_NOT_LOCKED), not reserved (409 ITEM_RESERVED), and not minted or minted and held by the organization wallet (409 ITEM_ALREADY_MINTED); named items fail on any ineligible one, collection_id and token_ranges take the eligible ones (none: 409 INVALID_STATE).',
          'quantity_listed defaults to every eligible unit; more is 422 INSUFFICIENT_SUPPLY. Currency: CARD_PROVIDER USD or EUR, CRYPTO_PROVIDER USD, MINT_VOUCHER ETH or a payment token symbol of the network, EMAIL_CLAIM any with price "0" (400 otherwise).',
          'CARD_PROVIDER and CRYPTO_PROVIDER need their set-up (422 CARD_PROVIDER_NOT_READY, CRYPTO_PROVIDER_NOT_READY); MINT_VOUCHER needs a payout_address (422 PAYOUT_ADDRESS_REQUIRED), a contract with MINT_VOUCHER (422 MISSING_MINT_CAPABILITY) and unminted items.',
          'The listing is PENDING_TX while the collection deployment is in flight (ACTIVE when it succeeds, CANCELLED if it fails), else ACTIVE; its items are reserved until sold or the listing is cancelled.',
        ].join(' '),
        body: CreateListingBody,
        response: { 201: Type.Ref(Listing), ...errorResponses(400, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const created = await ctx.db
        .transaction()
        .execute((tx) => createListing(tx, ctx, principalOf(request), request.body));
      return reply.code(201).send(created);
    },
  );
