import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { Collection, CreateCollectionBody } from '../collections.schemas.ts';
import { createCollection, toCollection } from '../collections.service.ts';

export const createCollectionRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/collections',
    {
      config: { access: needs('collections:write') },
      schema: {
        operationId: 'createCollection',
        tags: ['Collections'],
        summary: 'Create a collection, optionally deploying its contract',
        description:
          "Creates a collection in the caller's organization: reveal_hidden true for DELAYED (which needs preview_metadata, else 400 PREVIEW_METADATA_REQUIRED), false for INSTANT (which takes no preview_metadata); functions_enabled false; royalty_info null. Names are unique within the organization (409 ALREADY_EXISTS). With deployment_request, the collection is created and deployed as by the deployment request, in one step: an invalid deployment request creates nothing.",
        body: CreateCollectionBody,
        response: { 201: Type.Ref(Collection), ...errorResponses(422, 502) },
      },
    },
    async (request, reply) => {
      const row = await ctx.db
        .transaction()
        .execute((tx) => createCollection(tx, ctx, principalOf(request), request.body));
      return reply.code(201).send(toCollection(row));
    },
  );
