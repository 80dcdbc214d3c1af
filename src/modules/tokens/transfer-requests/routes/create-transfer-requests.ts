import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { TokenRequestBody, TransferRequests } from '../transfer-requests.schemas.ts';
import { createTransferRequests } from '../transfer-requests.service.ts';

export const createTransferRequestsRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/transfer-requests',
    {
      config: { access: needs('transfer_requests:write') },
      schema: {
        operationId: 'createTransferRequests',
        tags: ['Transfer requests'],
        summary: "Transfer minted items from the organization's wallet to an address: one record per item",
        description: [
          'Exactly one selector form: item_id, item_ids, collection_id, collection_id + token_ids or collection_id + token_ranges (else 400 INVALID_SELECTION); at most 100 items (400 TOO_MANY_ITEMS).',
          "Named items (item_id, item_ids, token_ids) must all be locked (409 ITEM_NOT_LOCKED), minted (409 ITEM_NOT_MINTED), not reserved by a listing, email claim or another request (409 ITEM_RESERVED) and held by the organization's wallet, quantity units per item (409 INVALID_STATE).",
          'collection_id alone takes the first 100 qualifying items in creation order; with token_ranges, the qualifying items whose token id lies in the ranges; either way other items are passed over, and when none qualifies the answer is 201 with an empty list.',
          'The collection must be deployed (409 INVALID_STATE). ERC1155 items move in one safeBatchTransferFrom; ERC721 items in one safeTransferFrom each. The items stay reserved until the transaction settles.',
        ].join(' '),
        body: TokenRequestBody,
        response: { 201: TransferRequests, ...errorResponses(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const created = await ctx.db
        .transaction()
        .execute((tx) => createTransferRequests(tx, ctx, principalOf(request), request.body));
      return reply.code(201).send({ transfer_requests: created });
    },
  );
