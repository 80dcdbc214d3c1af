import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailClaim, EmailClaimParams, ResendEmailClaimBody } from '../email-claims.schemas.ts';
import { resendEmailClaim } from '../email-claims.service.ts';

export const resendEmailClaimRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/email-claims/:claim_id/resend',
    {
      config: { access: needs('email_claims:write') },
      schema: {
        operationId: 'resendEmailClaim',
        tags: ['Email claims'],
        summary: 'Mail a new claim link (the old one stops working)',
        description:
          "Issues a new link and mails REDEEM_NFT again, to email when given (it becomes the claim's address); any PIN sent before is forgotten. Active unclaimed claims only (409 INVALID_STATE).",
        params: EmailClaimParams,
        body: ResendEmailClaimBody,
        response: { 200: Type.Ref(EmailClaim) },
      },
    },
    async (request) =>
      ctx.db
        .transaction()
        .execute((tx) =>
          resendEmailClaim(tx, ctx, principalOf(request), request.params.claim_id, request.body),
        ),
  );
