import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Stripe from 'stripe';
import { CardProviderError } from '../src/providers/card/card-payments.ts';
import { createStripeCardPayments } from '../src/providers/card/stripe.ts';
import { PLATFORM_KEYS } from './support/card-provider.ts';
import { type StripeStandin, startStripeStandin, stripeSignature } from './support/stripe-standin.ts';

/** The stand-in against the real SDK: what later tests (and the checkout page's fake Stripe.js) rely on. */
describe('Stripe stand-in, reached by the real SDK', () => {
  let standin: StripeStandin;
  let stripe: Stripe;
  const platform = { secretKey: PLATFORM_KEYS.secretKey };
  const received: { raw: string; headers: Record<string, string> }[] = [];
  before(async () => {
    standin = await startStripeStandin({
      secretKeys: [PLATFORM_KEYS.secretKey],
      publishableKeys: [PLATFORM_KEYS.publishableKey],
      webhook: {
        connectSecret: PLATFORM_KEYS.connectWebhookSecret,
        accountSecret: PLATFORM_KEYS.accountWebhookSecret,
        deliver: async (raw, headers) => {
          received.push({ raw, headers });
          return 200;
        },
      },
    });
    const base = new URL(standin.url);
    stripe = new Stripe(PLATFORM_KEYS.secretKey, {
      host: base.hostname,
      port: base.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    });
  });
  after(async () => {
    await standin?.close();
  });
  const card = () => createStripeCardPayments({ apiBase: standin.url });

  it('reads form bodies with bracket notation and checks the platform key', async () => {
    const account = await card().createConnectedAccount(platform, {
      type: 'standard',
      metadata: { organization_id: 'org-1' },
    });
    const request = standin.requests.at(-1);
    assert.equal(request?.contentType, 'application/x-www-form-urlencoded');
    assert.equal(request?.rawBody, 'type=standard&metadata[organization_id]=org-1');
    assert.deepEqual(request?.params, { type: 'standard', metadata: { organization_id: 'org-1' } });
    assert.deepEqual(await card().accountStatus(platform, account.id), {
      chargesEnabled: false,
      detailsSubmitted: false,
    });
    await assert.rejects(
      card().accountStatus({ secretKey: 'sk_test_notThePlatformsKey' }, account.id),
      (error: unknown) =>
        error instanceof CardProviderError &&
        error.details.status === 401 &&
        !error.message.includes('notThePlatformsKey'),
    );
  });

  it('replays an idempotent create and refuses the same key with another body', async () => {
    const account = await card().createConnectedAccount(platform, { type: 'standard' });
    const input = {
      accountId: account.id,
      amount: 1000n,
      currency: 'usd',
      applicationFeeAmount: 50n,
      metadata: { purchase_intent_id: 'intent-1' },
      idempotencyKey: `key-${Math.random()}`,
    };
    const first = await card().createPaymentIntent(platform, input);
    const again = await card().createPaymentIntent(platform, input);
    assert.equal(again.id, first.id);
    assert.equal(
      [...standin.paymentIntents.values()].filter((pi) => pi.metadata.purchase_intent_id === 'intent-1')
        .length,
      1,
    );
    await assert.rejects(
      stripe.paymentIntents.create(
        { amount: 2000, currency: 'usd' },
        { stripeAccount: account.id, idempotencyKey: input.idempotencyKey },
      ),
      (error: unknown) => error instanceof Stripe.errors.StripeIdempotencyError,
    );
    // Another account cannot see it.
    const other = await card().createConnectedAccount(platform, { type: 'standard' });
    await assert.rejects(
      card().retrievePaymentIntent(platform, other.id, first.id),
      (error: unknown) => error instanceof CardProviderError && error.details.code === 'resource_missing',
    );
    // A fee needs a connected account (a direct charge).
    await assert.rejects(
      stripe.paymentIntents.create({ amount: 1000, currency: 'usd', application_fee_amount: 10 }),
      (error: unknown) => error instanceof Stripe.errors.StripeInvalidRequestError,
    );
  });

  it('confirms, declines and cancels as Stripe does, and signs its events so the SDK verifies them', async () => {
    const account = await card().createConnectedAccount(platform, { type: 'standard' });
    const create = (key: string) =>
      card().createPaymentIntent(platform, {
        accountId: account.id,
        amount: 500n,
        currency: 'eur',
        applicationFeeAmount: 0n,
        metadata: {},
        idempotencyKey: key,
      });
    const pi = await create(`a-${Math.random()}`);
    await assert.rejects(
      stripe.paymentIntents.confirm(
        pi.id,
        { payment_method: 'pm_card_chargeDeclined' },
        { stripeAccount: account.id },
      ),
      (error: unknown) => error instanceof Stripe.errors.StripeCardError && error.code === 'card_declined',
    );
    const paid = await stripe.paymentIntents.confirm(
      pi.id,
      { payment_method: 'pm_card_visa' },
      { stripeAccount: account.id },
    );
    assert.equal(paid.status, 'succeeded');
    assert.equal(paid.amount_received, 500);
    await standin.idle();
    assert.deepEqual(
      received.slice(-2).map((r) => JSON.parse(r.raw).type),
      ['payment_intent.payment_failed', 'payment_intent.succeeded'],
    );
    const last = received.at(-1)!;
    const event = Stripe.webhooks.constructEvent(
      last.raw,
      last.headers['stripe-signature']!,
      PLATFORM_KEYS.connectWebhookSecret,
    );
    assert.equal(event.account, account.id);
    assert.match(event.id, /^evt_/);
    assert.equal(
      card().verifyEvent(Buffer.from(last.raw), last.headers['stripe-signature'], [
        PLATFORM_KEYS.connectWebhookSecret,
      ]).id,
      event.id,
    );
    assert.equal(
      last.headers['stripe-signature'],
      stripeSignature(
        last.raw,
        PLATFORM_KEYS.connectWebhookSecret,
        Number(/t=(\d+)/.exec(last.headers['stripe-signature']!)![1]),
      ),
    );

    // A succeeded PaymentIntent is not cancellable: no error, its status says why.
    assert.equal(await card().cancelPaymentIntent(platform, account.id, pi.id), 'succeeded');
    const open = await create(`b-${Math.random()}`);
    assert.equal(await card().cancelPaymentIntent(platform, account.id, open.id), 'canceled');
    assert.equal(await card().cancelPaymentIntent(platform, account.id, open.id), 'canceled');
    await assert.rejects(
      stripe.paymentIntents.confirm(
        open.id,
        { payment_method: 'pm_card_visa' },
        { stripeAccount: account.id },
      ),
      (error: unknown) =>
        error instanceof Stripe.errors.StripeInvalidRequestError &&
        error.code === 'payment_intent_unexpected_state',
    );
  });

  it('fails every call while down, as a provider failure worth retrying', async () => {
    standin.down = true;
    try {
      await assert.rejects(
        createStripeCardPayments({ apiBase: standin.url }).createConnectedAccount(platform, {
          type: 'standard',
        }),
        (error: unknown) => error instanceof CardProviderError && error.details.transient,
      );
    } finally {
      standin.down = false;
    }
  });
});
