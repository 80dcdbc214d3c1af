import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailClaim, EmailClaimParams } from '../email-claims.schemas.ts';
import { revokeEmailClaim } from '../email-claims.service.ts';

export const revokeEmailClaimRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/email-claims/:claim_id/revoke',
    {
      config: { access: needs('email_claims:write') },
      schema: {
        operationId: 'revokeEmailClaim',
        tags: ['Email claims'],
        summary: 'Deactivate an unclaimed claim and release its item',
        description:
          'The link stops working (status REVOKED) and the item is free for other flows. Claimed, revoked or expired claims answer 409 INVALID_STATE.',
        params: EmailClaimParams,
        response: { 200: Type.Ref(EmailClaim) },
      },
    },
    async (request) =>
      ctx.db
        .transaction()
        .execute((tx) => revokeEmailClaim(tx, ctx, principalOf(request), request.params.claim_id)),
  );
