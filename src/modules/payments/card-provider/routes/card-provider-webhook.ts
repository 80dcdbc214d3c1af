import { Type } from '@sinclair/typebox';
import { PROVIDER_SIGNED } from '../../../../access/access.ts';
import { Uuid } from '../../../../http/schemas.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { rawBodyOf } from '../../../../http/webhooks-scope.ts';
import { ApiError } from '../../../../lib/errors.ts';
import { type CardEvent, CardSignatureError } from '../../../../providers/card/card-payments.ts';
import { receiveProviderEvent } from '../../../platform/provider-events/provider-events.service.ts';
import { CARD_PROVIDER_EVENTS } from '../card-events.ts';
import { getPlatformAccount, webhookSecretsOf } from '../card-provider.service.ts';

/**
 * Stripe's events for one platform account (its account endpoint and its Connect endpoint both
 * point here). The Stripe-Signature is verified by the SDK on the raw body against either of the
 * platform account's endpoint secrets (300 s tolerance); a bad, missing or stale one is a 400 and
 * nothing is stored. A verified event goes to the inbox: recorded once per event id, processed by
 * processCardEvent (a failure is kept and retried by a job), answered 200 either way.
 */
export const cardProviderWebhookRoute: RouteModule = (app, ctx) =>
  app.post(
    '/card-provider/:platform_card_provider_account_id',
    {
      config: { access: PROVIDER_SIGNED },
      schema: {
        params: Type.Object({ platform_card_provider_account_id: Uuid }, { additionalProperties: false }),
      },
    },
    async (request) => {
      const platform = await getPlatformAccount(ctx.db, request.params.platform_card_provider_account_id);
      const raw = rawBodyOf(request);
      const header = request.headers['stripe-signature'];
      let event: CardEvent;
      try {
        event = ctx.cardPayments.verifyEvent(
          raw,
          typeof header === 'string' ? header : undefined,
          webhookSecretsOf(ctx, platform),
        );
      } catch (error) {
        if (error instanceof CardSignatureError)
          throw new ApiError('VALIDATION_FAILED', `the Stripe-Signature does not verify: ${error.message}`);
        throw error;
      }
      const recorded = await receiveProviderEvent(ctx.db, ctx, {
        provider: CARD_PROVIDER_EVENTS,
        eventId: event.id,
        eventType: event.type,
        account: event.account,
        payload: raw.toString('utf8'),
      });
      return { received: true, duplicate: recorded.duplicate };
    },
  );
