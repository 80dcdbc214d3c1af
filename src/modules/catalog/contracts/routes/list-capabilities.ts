import { PUBLIC } from '../../../../access/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { KnownCapability, ListCapabilitiesQuery } from '../contracts.schemas.ts';
import { listKnownCapabilities } from '../contracts.service.ts';

export const listCapabilitiesRoute: RouteModule = (app) =>
  app.get(
    '/v1/public/capabilities',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'listCapabilities',
        tags: ['Contracts'],
        summary: 'List the known capabilities and the functions each requires',
        description:
          'The capability registry, ordered by name: each capability with the ABI of the functions a contract needs to have it.',
        querystring: ListCapabilitiesQuery,
        response: { 200: Page(KnownCapability, 'KnownCapabilityPage') },
      },
    },
    async (request) => listKnownCapabilities(request.query),
  );
