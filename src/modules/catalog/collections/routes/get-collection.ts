import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { Collection, CollectionParams } from '../collections.schemas.ts';
import { getCollectionRow, toCollection } from '../collections.service.ts';

export const getCollectionRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/collections/:collection_id',
    {
      config: { access: needs('collections:read') },
      schema: {
        operationId: 'getCollection',
        tags: ['Collections'],
        summary: 'Get a collection with its deployment',
        params: CollectionParams,
        response: { 200: Type.Ref(Collection) },
      },
    },
    async (request) =>
      toCollection(await getCollectionRow(ctx.db, principalOf(request), request.params.collection_id)),
  );
