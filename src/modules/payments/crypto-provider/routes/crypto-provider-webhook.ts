import { Type } from '@sinclair/typebox';
import { PROVIDER_SIGNED } from '../../../../access/access.ts';
import { Uuid } from '../../../../http/schemas.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { rawBodyOf } from '../../../../http/webhooks-scope.ts';
import { ApiError } from '../../../../lib/errors.ts';
import { receiveCryptoEvent } from '../crypto-events.ts';

/**
 * Payment-link events of one organization's webhook subscription (CDP webhooks, delivered by
 * Hook0): the signature is checked on the raw body with that organization's webhook secret before
 * anything is stored; a bad, missing or stale one is a 400 and nothing changes.
 */
export const cryptoProviderWebhookRoute: RouteModule = (app, ctx) =>
  app.post(
    '/crypto-provider/:organization_id',
    {
      config: { access: PROVIDER_SIGNED },
      schema: { params: Type.Object({ organization_id: Uuid }, { additionalProperties: false }) },
    },
    async (request) => {
      const { organization_id: organizationId } = request.params as { organization_id: string };
      const outcome = await receiveCryptoEvent(ctx.db, ctx, {
        organizationId,
        headers: request.headers,
        rawBody: rawBodyOf(request),
      });
      if (!outcome.ok) throw new ApiError('VALIDATION_FAILED', outcome.reason);
      return { received: true, duplicate: outcome.duplicate };
    },
  );
