import { CLAIM_TOKEN } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { sendClaimPin } from '../email-claim-redeem.service.ts';
import { ClaimTokenParams, PinSent } from '../email-claims.schemas.ts';

export const verifyEmailClaimRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/public/email-claims/:claim_token/verify',
    {
      config: { access: CLAIM_TOKEN },
      schema: {
        operationId: 'verifyEmailClaim',
        tags: ['Public'],
        summary: "Mail a 6-digit PIN to the claim's address",
        description:
          'The PIN (CLAIM_PINCODE mail) works for 15 minutes and 5 tries, and replaces any earlier one. At most one mail a minute per claim (429 RATE_LIMITED with Retry-After); also rate limited per client address. Claimed, revoked or expired claims answer 409 INVALID_STATE.',
        params: ClaimTokenParams,
        response: { 200: PinSent, ...errorResponses(409, 429) },
      },
    },
    async (request) => sendClaimPin(ctx.db, request.params.claim_token, request.ip),
  );
