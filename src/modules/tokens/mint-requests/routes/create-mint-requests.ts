import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { MintRequests, TokenRequestBody } from '../mint-requests.schemas.ts';
import { createMintRequests } from '../mint-requests.service.ts';

export const createMintRequestsRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/mint-requests',
    {
      config: { access: needs('mint_requests:write') },
      schema: {
        operationId: 'createMintRequests',
        tags: ['Mint requests'],
        summary: 'Mint locked items to an address: one record per item',
        description: [
          'Exactly one selector form: item_id, item_ids, collection_id, collection_id + token_ids or collection_id + token_ranges (else 400 INVALID_SELECTION); at most 100 items (400 TOO_MANY_ITEMS).',
          'Named items (item_id, item_ids, token_ids) must all be locked (409 ITEM_NOT_LOCKED), not minted (409 ITEM_ALREADY_MINTED; ERC1155: quantity within the supply left, else 422 INSUFFICIENT_SUPPLY) and not reserved by a listing, email claim or another request, a mint in progress included (409 ITEM_RESERVED).',
          'collection_id alone takes the first 100 qualifying items in creation order; with token_ranges, the qualifying items whose token id lies in the ranges; either way other items are passed over, and when none qualifies the answer is 201 with an empty list.',
          'The collection must be deployed (409 INVALID_STATE) and mintable (422 MISSING_MINT_CAPABILITY). One transaction mints the whole request when the contract mints in batches (ADMIN_MINT_BATCH, ADMIN_MINT_MULTIPLE, ADMIN_MINT_MULTIPLE_NO_ID for EXTERNAL token ids), else one per item.',
          'The items are reserved and MINTING until the transaction settles: COMPLETED mints them, FAILED (reverted or cancelled) makes them mintable again.',
        ].join(' '),
        body: TokenRequestBody,
        response: { 201: MintRequests, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const created = await ctx.db
        .transaction()
        .execute((tx) => createMintRequests(tx, ctx, principalOf(request), request.body));
      return reply.code(201).send({ mint_requests: created });
    },
  );
