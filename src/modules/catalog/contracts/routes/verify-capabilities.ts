import { needs } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { Capabilities, VerifyCapabilitiesBody } from '../contracts.schemas.ts';
import { verifyCapabilities } from '../contracts.service.ts';

export const verifyCapabilitiesRoute: RouteModule = (app) =>
  app.post(
    '/v1/contracts/verify-capabilities',
    {
      // Nothing is stored or sent: whoever may read collections may check a contract.
      config: { access: needs('collections:read') },
      schema: {
        operationId: 'verifyCapabilities',
        tags: ['Contracts'],
        summary: 'Verify the capabilities of a token contract',
        description:
          'Computes the capabilities of a contract from its ABI (capability rule 3) after checking the ABI, the bytecode and the constructor arguments as a CUSTOM deployment would (400 VALIDATION_FAILED with fields). 422 MISSING_TOKEN_CAPABILITY when the contract has neither ERC721 nor ERC1155 (rule 1), or lacks the token_type given. Nothing is deployed.',
        body: VerifyCapabilitiesBody,
        // 422 MISSING_TOKEN_CAPABILITY is this operation's own; the shared statuses are added by app.ts.
        response: { 200: Capabilities, ...errorResponses(422) },
      },
    },
    async (request) => verifyCapabilities(request.body),
  );
