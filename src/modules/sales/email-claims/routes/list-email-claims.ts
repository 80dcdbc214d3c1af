import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import { Page } from '../../../../http/pagination.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { EmailClaim, ListEmailClaimsQuery } from '../email-claims.schemas.ts';
import { listEmailClaims } from '../email-claims.service.ts';

export const listEmailClaimsRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/email-claims',
    {
      config: { access: needs('email_claims:read') },
      schema: {
        operationId: 'listEmailClaims',
        tags: ['Email claims'],
        summary: 'List email claims',
        description:
          'Filters: collection_ids, item_ids, token_ids (repeated parameters), email (any case), claimed, active (false: revoked or past expiration). order_by CREATED_AT (default), EXPIRATION or CLAIMED_AT (unclaimed claims after the claimed ones), ties by id.',
        querystring: ListEmailClaimsQuery,
        response: { 200: Page(Type.Ref(EmailClaim), 'EmailClaimPage') },
      },
    },
    async (request) => listEmailClaims(ctx.db, principalOf(request), request.query),
  );
