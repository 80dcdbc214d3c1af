import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { Capabilities } from '../../contracts/contracts.schemas.ts';
import { CollectionParams } from '../collections.schemas.ts';
import { getPublicCapabilities } from '../collections.service.ts';

export const getPublicCapabilitiesRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/public/collections/:collection_id/capabilities',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'getCollectionCapabilities',
        tags: ['Collections'],
        summary: "Capabilities of a collection's contract (public)",
        description: 'Empty until the contract is deployed (or registered).',
        params: CollectionParams,
        response: { 200: Capabilities },
      },
    },
    async (request) => getPublicCapabilities(ctx.db, request.params.collection_id),
  );
