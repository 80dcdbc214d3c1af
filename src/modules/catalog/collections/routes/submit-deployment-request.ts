import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { CollectionParams, DeploymentRequest, DeploymentRequestStatus } from '../collections.schemas.ts';
import { submitDeploymentRequest } from '../deployments.service.ts';

export const submitDeploymentRequestRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/collections/:collection_id/deployment-request',
    {
      config: { access: needs('collections:write') },
      schema: {
        operationId: 'submitDeploymentRequest',
        tags: ['Collections'],
        summary: "Deploy (or register) the collection's contract",
        description:
          "Allowed when no deployment exists or the last one FAILED (409 INVALID_STATE otherwise). network_id must be a registered, enabled network among the organization's network_ids. PLATFORM deploys a platform variant (its baseURI and contractURI point at /v1/metadata/{collection_id}, the organization's wallet is its admin, royalty_info its default royalty); CUSTOM deploys the given contract after checking it as verify-capabilities does; both answer PENDING with the DEPLOY transaction, and the deployment becomes SUCCESS (address and capabilities set) or FAILED when it settles. EXTERNAL registers a deployed contract: its capabilities are read now (ERC-165 and the selectors in its bytecode), nothing is sent, and it is SUCCESS at once with transaction_id null. 422 MISSING_TOKEN_CAPABILITY when the contract lacks its token standard; token_id_assignment_strategy EXTERNAL is for ERC721 contracts with ADMIN_MINT_MULTIPLE_NO_ID (else 400 / 422 MISSING_MINT_CAPABILITY). 502 when the node fails reading an EXTERNAL contract.",
        params: CollectionParams,
        body: DeploymentRequest,
        response: { 200: DeploymentRequestStatus, ...errorResponses(422, 502) },
      },
    },
    async (request) =>
      ctx.db
        .transaction()
        .execute((tx) =>
          submitDeploymentRequest(tx, ctx, principalOf(request), request.params.collection_id, request.body),
        ),
  );
