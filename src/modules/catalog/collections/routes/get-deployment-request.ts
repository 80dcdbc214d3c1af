import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { CollectionParams, DeploymentRequestStatus } from '../collections.schemas.ts';
import { getDeploymentRequest } from '../deployments.service.ts';

export const getDeploymentRequestRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/collections/:collection_id/deployment-request',
    {
      config: { access: needs('collections:read') },
      schema: {
        operationId: 'getDeploymentRequest',
        tags: ['Collections'],
        summary: "Status of the collection's deployment",
        description:
          'PENDING until the deployment transaction settles, then SUCCESS or FAILED (with failure_reason). 404 when no deployment was ever requested.',
        params: CollectionParams,
        response: { 200: DeploymentRequestStatus },
      },
    },
    async (request) => getDeploymentRequest(ctx.db, principalOf(request), request.params.collection_id),
  );
