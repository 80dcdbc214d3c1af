import type { Deps, PaymentCheck, PaymentSessions } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { PurchaseIntentRow } from '../../../db/schema.ts';
import * as repo from './card-provider.repository.ts';
import { credentialsOf, readyCardAccount, upstreamFailed } from './card-provider.service.ts';

/** The fee the platform takes from a card sale: `platform_sale_fee` basis points of the amount, rounded down. */
export function applicationFee(amount: bigint, platformSaleFeeBps: number): bigint {
  return (amount * BigInt(platformSaleFeeBps)) / 10_000n;
}

/** What the buyer's page needs to pay a card purchase intent (Stripe.js on the connected account). */
export interface CardSessionData {
  account_id: string;
  client_secret: string;
  mode: 'TEST' | 'LIVE';
  publishable_key: string;
  session_id: string;
}

/**
 * The connected account and platform account an intent's PaymentIntent lives on: the account
 * named in its data (where it was created; kept when the organization disconnects it), else the
 * organization's current one.
 */
async function sessionAccount(db: Executor, intent: PurchaseIntentRow) {
  const accountId = (intent.data as Partial<CardSessionData> | null)?.account_id;
  const connected =
    typeof accountId === 'string'
      ? await repo.findOrganizationAccount(db, intent.organization_id, accountId)
      : await repo.findConnectedAccount(db, intent.organization_id);
  if (!connected) return undefined;
  const platform = await repo.findPlatformAccount(db, connected.platform_card_provider_account_id);
  return platform ? { platform, accountId: connected.account_id } : undefined;
}

/**
 * Card payments (CARD_PROVIDER) as purchase intents use them: a PaymentIntent created as a direct
 * charge on the organization's connected account, whose id is the intent's
 * card_provider_payment_intent_id.
 */
export const cardPaymentSessions: PaymentSessions = {
  async assertReady(db, _deps, organizationId) {
    await readyCardAccount(db, organizationId);
  },

  async defaultSessionSeconds(db, _deps, organizationId) {
    const setup = await repo.findCardSaleSetup(db, organizationId);
    return setup && setup.platform.session_timeout_minutes * 60;
  },

  async open(db, deps: Deps, intent, listing) {
    const { platform, account, platformSaleFee } = await readyCardAccount(db, intent.organization_id);
    const price = intent.provider_price as { amount: string };
    const amount = BigInt(price.amount);
    let paymentIntent: Awaited<ReturnType<typeof deps.cardPayments.createPaymentIntent>>;
    try {
      paymentIntent = await deps.cardPayments.createPaymentIntent(credentialsOf(deps, platform), {
        accountId: account.account_id,
        amount,
        currency: listing.currency.toLowerCase(),
        applicationFeeAmount: applicationFee(amount, platformSaleFee),
        metadata: { purchase_intent_id: intent.id },
        idempotencyKey: intent.id,
      });
    } catch (error) {
      throw upstreamFailed(error, 'opening the card payment failed');
    }
    const data: CardSessionData = {
      account_id: account.account_id,
      client_secret: paymentIntent.clientSecret,
      mode: platform.mode,
      publishable_key: platform.publishable_key,
      session_id: intent.id,
    };
    return { reference: paymentIntent.id, data: { ...data } };
  },

  async cancel(db, deps, intent) {
    const reference = intent.card_provider_payment_intent_id;
    if (reference === null) return;
    const session = await sessionAccount(db, intent);
    if (!session) {
      deps.logger.warn(
        { purchaseIntentId: intent.id, paymentIntentId: reference },
        'card provider: the PaymentIntent of an ended intent cannot be cancelled (no connected account of the organization holds it)',
      );
      return;
    }
    let status: string;
    try {
      status = await deps.cardPayments.cancelPaymentIntent(
        credentialsOf(deps, session.platform),
        session.accountId,
        reference,
      );
    } catch (error) {
      throw upstreamFailed(error, 'cancelling the card payment failed');
    }
    // Paid before it could be cancelled: its payment_intent.succeeded event (or the check) says so.
    if (status === 'succeeded')
      deps.logger.info(
        { purchaseIntentId: intent.id, paymentIntentId: reference },
        'card provider: the PaymentIntent succeeded before it could be cancelled',
      );
  },

  async check(db, deps, intent): Promise<PaymentCheck> {
    const reference = intent.card_provider_payment_intent_id;
    if (reference === null) return { state: 'CLOSED' };
    const session = await sessionAccount(db, intent);
    if (!session) return { state: 'OPEN' };
    let paymentIntent: Awaited<ReturnType<typeof deps.cardPayments.retrievePaymentIntent>>;
    try {
      paymentIntent = await deps.cardPayments.retrievePaymentIntent(
        credentialsOf(deps, session.platform),
        session.accountId,
        reference,
      );
    } catch (error) {
      throw upstreamFailed(error, 'reading the card payment failed');
    }
    if (paymentIntent.status === 'succeeded')
      return {
        state: 'PAID',
        amount: paymentIntent.amountReceived,
        currency: paymentIntent.currency.toUpperCase(),
      };
    if (paymentIntent.status === 'canceled') return { state: 'CLOSED' };
    return { state: 'OPEN' };
  },
};
