import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailClaim, EmailClaimParams } from '../email-claims.schemas.ts';
import { getEmailClaim } from '../email-claims.service.ts';

export const getEmailClaimRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/email-claims/:claim_id',
    {
      config: { access: needs('email_claims:read') },
      schema: {
        operationId: 'getEmailClaim',
        tags: ['Email claims'],
        summary: 'Get an email claim',
        params: EmailClaimParams,
        response: { 200: Type.Ref(EmailClaim) },
      },
    },
    async (request) => getEmailClaim(ctx.db, principalOf(request), request.params.claim_id),
  );
