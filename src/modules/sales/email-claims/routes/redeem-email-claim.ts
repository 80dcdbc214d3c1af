import { CLAIM_TOKEN } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { redeemEmailClaim } from '../email-claim-redeem.service.ts';
import { ClaimTokenParams, RedeemEmailClaimBody, RedeemResult } from '../email-claims.schemas.ts';

export const redeemEmailClaimRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/public/email-claims/:claim_token/redeem',
    {
      config: { access: CLAIM_TOKEN },
      schema: {
        operationId: 'redeemEmailClaim',
        tags: ['Public'],
        summary: 'Redeem a claim to an address with the mailed PIN',
        description: [
          'Claimed, revoked and expired claims answer 409 INVALID_STATE (checked before the PIN).',
          'No usable PIN (none requested, expired, or burned) is 401 INVALID_CREDENTIALS asking for a new one; a wrong PIN is 401 INVALID_CREDENTIALS with the tries left, and the 5th wrong try burns it.',
          'address must be able to receive the token (not the zero address or the contract: 400).',
          'Success starts the mint (or the transfer of a held item) to address through the relayer and answers its transaction_id; follow it with GET /v1/public/email-claims/{claim_token}. A CLAIMED_NFT mail follows when it completes; if it fails, the claim is ACTIVE again and may be redeemed anew.',
          "tx_payer BUYER: success answers transaction_id null and a voucher signed for address (price 0: address pays only the gas of the contract's mintWithVoucher); address may have one pending voucher per contract (409 INVALID_STATE otherwise). The CLAIMED_NFT mail follows the redemption seen on chain; a voucher that expires unredeemed ends the claim (EXPIRED).",
          'Rate limited per client address.',
        ].join(' '),
        params: ClaimTokenParams,
        body: RedeemEmailClaimBody,
        response: { 200: RedeemResult, ...errorResponses(400, 401, 409, 429) },
      },
    },
    async (request) => redeemEmailClaim(ctx.db, ctx, request.params.claim_token, request.body, request.ip),
  );
