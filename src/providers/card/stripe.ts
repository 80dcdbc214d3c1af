import Stripe from 'stripe';
import {
  type CardEvent,
  type CardPaymentIntent,
  type CardPayments,
  type CardPlatformCredentials,
  CardProviderError,
  CardSignatureError,
} from './card-payments.ts';

/** Seconds an event's signature timestamp may be away from now. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const TIMEOUT_MS = 20_000;
const MAX_NETWORK_RETRIES = 2;

/**
 * CardPayments over the official `stripe` SDK. `apiBase` (STRIPE_API_BASE) points every client
 * at another host, port and scheme (a local stand-in in tests); unset, Stripe's API. One SDK
 * client per platform secret key, kept for the process. Connected-account calls carry the
 * `stripeAccount` request option (the Stripe-Account header); PaymentIntents are direct charges.
 */
export function createStripeCardPayments(options: { apiBase: string | undefined }): CardPayments {
  const base = options.apiBase === undefined ? undefined : new URL(options.apiBase);
  const clients = new Map<string, Stripe>();

  function client(platform: CardPlatformCredentials): Stripe {
    let stripe = clients.get(platform.secretKey);
    if (!stripe) {
      stripe = new Stripe(platform.secretKey, {
        maxNetworkRetries: MAX_NETWORK_RETRIES,
        timeout: TIMEOUT_MS,
        telemetry: false,
        ...(base && {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? ('https' as const) : ('http' as const),
        }),
      });
      clients.set(platform.secretKey, stripe);
    }
    return stripe;
  }

  return {
    async createConnectedAccount(platform, input) {
      const account = await call(() =>
        client(platform).accounts.create(
          {
            type: input.type,
            ...(input.email !== undefined && { email: input.email }),
            ...(input.metadata && { metadata: input.metadata }),
          },
          input.idempotencyKey === undefined ? undefined : { idempotencyKey: input.idempotencyKey },
        ),
      );
      return {
        id: account.id,
        chargesEnabled: account.charges_enabled === true,
        detailsSubmitted: account.details_submitted === true,
      };
    },

    async accountStatus(platform, accountId) {
      const account = await call(() => client(platform).accounts.retrieve(accountId));
      return {
        chargesEnabled: account.charges_enabled === true,
        detailsSubmitted: account.details_submitted === true,
      };
    },

    async createAccountLink(platform, input) {
      const link = await call(() =>
        client(platform).accountLinks.create({
          account: input.accountId,
          refresh_url: input.refreshUrl,
          return_url: input.returnUrl,
          type: 'account_onboarding',
        }),
      );
      return { url: link.url };
    },

    async createPaymentIntent(platform, input) {
      const intent = await call(() =>
        client(platform).paymentIntents.create(
          {
            amount: toNumber(input.amount),
            currency: input.currency,
            application_fee_amount: toNumber(input.applicationFeeAmount),
            metadata: input.metadata,
            automatic_payment_methods: { enabled: true },
          },
          { stripeAccount: input.accountId, idempotencyKey: input.idempotencyKey },
        ),
      );
      return toCardPaymentIntent(intent);
    },

    async retrievePaymentIntent(platform, accountId, id) {
      const intent = await call(() =>
        client(platform).paymentIntents.retrieve(id, {}, { stripeAccount: accountId }),
      );
      return toCardPaymentIntent(intent);
    },

    async cancelPaymentIntent(platform, accountId, id) {
      try {
        const intent = await call(() =>
          client(platform).paymentIntents.cancel(id, {}, { stripeAccount: accountId }),
        );
        return intent.status;
      } catch (error) {
        // Already canceled, or succeeded first: Stripe refuses with this code; say which.
        if (error instanceof CardProviderError && error.details.code === 'payment_intent_unexpected_state') {
          const intent = await call(() =>
            client(platform).paymentIntents.retrieve(id, {}, { stripeAccount: accountId }),
          );
          if (intent.status === 'canceled' || intent.status === 'succeeded') return intent.status;
        }
        throw error;
      }
    },

    verifyEvent(rawBody, signatureHeader, secrets) {
      if (signatureHeader === undefined || signatureHeader === '')
        throw new CardSignatureError('no Stripe-Signature header');
      let last: unknown;
      for (const secret of secrets) {
        try {
          const event = Stripe.webhooks.constructEvent(
            rawBody,
            signatureHeader,
            secret,
            SIGNATURE_TOLERANCE_SECONDS,
          );
          return toCardEvent(event);
        } catch (error) {
          last = error;
        }
      }
      throw new CardSignatureError(
        last instanceof Error ? last.message : 'no webhook endpoint secret is configured',
      );
    },
  };
}

function toCardEvent(event: Stripe.Event): CardEvent {
  if (typeof event.id !== 'string' || typeof event.type !== 'string')
    throw new CardSignatureError('the event has no id or type');
  return {
    id: event.id,
    type: event.type,
    account: typeof event.account === 'string' ? event.account : null,
  };
}

function toCardPaymentIntent(intent: Stripe.PaymentIntent): CardPaymentIntent {
  return {
    id: intent.id,
    clientSecret: intent.client_secret ?? '',
    status: intent.status,
    amount: BigInt(intent.amount),
    amountReceived: BigInt(intent.amount_received ?? 0),
    currency: intent.currency,
  };
}

function toNumber(value: bigint): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new CardProviderError(`amount ${value} is out of the card provider's range`, {
      transient: false,
      status: undefined,
      type: undefined,
      code: 'amount_out_of_range',
    });
  return Number(value);
}

/** Runs an SDK call; its failures become CardProviderError (never carrying a key). */
async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof CardProviderError) throw error;
    if (error instanceof Stripe.errors.StripeError) {
      const status = error.statusCode;
      const transient =
        error instanceof Stripe.errors.StripeConnectionError ||
        status === undefined ||
        status >= 500 ||
        status === 429;
      throw new CardProviderError(`card provider: ${redact(error.message)}`, {
        transient,
        status,
        type: error.type,
        code: error.code,
      });
    }
    throw new CardProviderError(
      `card provider: ${redact(error instanceof Error ? error.message : String(error))}`,
      {
        transient: true,
        status: undefined,
        type: undefined,
        code: undefined,
      },
    );
  }
}

/** Stripe's messages may quote a key ("Invalid API Key provided: sk_test_…"). */
function redact(message: string): string {
  return message.replace(/\b(sk|rk|whsec)_[A-Za-z0-9_]+/g, '$1_…');
}
