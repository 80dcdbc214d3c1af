import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { createPurchaseIntent, limitAndFindListing } from '../purchase-creation.service.ts';
import { CreatedPurchaseIntent, CreatePurchaseIntentBody } from '../purchase-intents.schemas.ts';
import { openPaymentSession } from '../purchase-payments.service.ts';

export const createPurchaseIntentRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/public/purchase-intents',
    {
      config: {
        access: PUBLIC,
        // A buyer's retry is recognised per listing, by its key and body, from whatever address it
        // comes (a phone that changed networks between two tries gets its first answer back).
        idempotencyScope: (request) => {
          const body = request.body as { listing_id?: unknown } | undefined;
          return typeof body?.listing_id === 'string' ? `listing:${body.listing_id}` : undefined;
        },
      },
      schema: {
        operationId: 'createPurchaseIntent',
        tags: ['Public'],
        summary: "Hold a listing's units for a buyer",
        description: [
          'Checked in order: the listing exists (404); it is ACTIVE and within its window (422 NOT_ELIGIBLE); provider is one of its payment_providers (400); quantity is at most max_quantity_per_tx (400); the buyer fits the provider (MINT_VOUCHER: eth_address; EMAIL_CLAIM: email; else either) (400); the allow list and max_per_user (422 NOT_ELIGIBLE); units available (422 INSUFFICIENT_SUPPLY).',
          'The intent is PENDING until its expiration (the policy session length), then EXPIRED and its hold released; EMAIL_CLAIM intents are CONFIRMED at once and delivered by email claim.',
          'client_token is returned only here: send it as X-Client-Token to read or cancel the intent. fulfillment_method: VOUCHER for MINT_VOUCHER, EMAIL for EMAIL_CLAIM, else TRANSFER with eth_address and EMAIL with email alone.',
          'CARD_PROVIDER and CRYPTO_PROVIDER: the payment session is opened at the provider and data says how to pay; a provider that fails or refuses is 502 UPSTREAM_FAILED and nothing stays held.',
          'Idempotency-Key is honoured per listing, whatever the client address: a retry with the same key and body answers the first answer again (one hold, one payment session); the same key with another body is 409 IDEMPOTENCY_KEY_REUSED. Use an unguessable key (a UUID). Rate limited per client address and per buyer (429).',
        ].join(' '),
        body: CreatePurchaseIntentBody,
        response: { 201: CreatedPurchaseIntent, ...errorResponses(400, 404, 409, 422, 429, 502) },
      },
    },
    async (request, reply) => {
      const listing = await limitAndFindListing(ctx.db, request.body, request.ip);
      const created = await createPurchaseIntent(ctx.db, ctx, request.body, listing);
      // A card or crypto payment's session is opened at the provider once the hold is committed.
      return reply.code(201).send(await openPaymentSession(ctx.db, ctx, created));
    },
  );
