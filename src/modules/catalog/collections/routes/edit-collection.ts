import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { Collection, CollectionParams, EditCollectionBody } from '../collections.schemas.ts';
import { editCollection, toCollection } from '../collections.service.ts';

export const editCollectionRoute: RouteModule = (app, ctx) =>
  app.patch(
    '/v1/collections/:collection_id',
    {
      config: { access: needs('collections:write') },
      schema: {
        operationId: 'editCollection',
        tags: ['Collections'],
        summary: 'Edit a collection (only the attributes present change)',
        description:
          'reveal_hidden goes from true to false only, on DELAYED collections; editable_metadata from true to false only (409 INVALID_STATE otherwise; sending the current value changes nothing). A DELAYED collection keeps its preview_metadata (400 PREVIEW_METADATA_REQUIRED). Null clears default_item_type_id, image_url and royalty_info. royalty_info {receiver, amount_bps} is also set on a deployed contract with the CONTRACT_ROYALTY capability, by a ROYALTY_UPDATE transaction (null: deleteDefaultRoyalty(), 409 when the contract lacks it); it cannot change while a deployment is PENDING (409).',
        params: CollectionParams,
        body: EditCollectionBody,
        response: { 200: Type.Ref(Collection), ...errorResponses(409) },
      },
    },
    async (request) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) =>
          editCollection(tx, principalOf(request), request.params.collection_id, request.body),
        );
      return toCollection(row);
    },
  );
