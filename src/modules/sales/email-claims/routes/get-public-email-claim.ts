import { CLAIM_TOKEN } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { getPublicEmailClaim } from '../email-claim-redeem.service.ts';
import { ClaimTokenParams, PublicEmailClaim } from '../email-claims.schemas.ts';

export const getPublicEmailClaimRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/public/email-claims/:claim_token',
    {
      config: { access: CLAIM_TOKEN },
      schema: {
        operationId: 'getPublicEmailClaim',
        tags: ['Public'],
        summary: "The claim page's view of a claim, by its link's token",
        description:
          'status ACTIVE, CLAIMED, EXPIRED or REVOKED; the item; the masked email; the PIN in force (null when none can be used); the delivery transaction once redeemed (its state PENDING, SUBMITTED, COMPLETED or FAILED, hash, address, network and contract), which the page polls until COMPLETED. An unknown or replaced token is 404. Rate limited per client address.',
        params: ClaimTokenParams,
        response: { 200: PublicEmailClaim },
      },
    },
    async (request) => getPublicEmailClaim(ctx.db, request.params.claim_token, request.ip),
  );
