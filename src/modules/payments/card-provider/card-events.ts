import type { Deps } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { ProviderEventRow } from '../../../db/schema.ts';
import { UUID_PATTERN } from '../../../lib/ids.ts';
import {
  purchaseIntentOwner,
  recordPayment,
  recordPaymentClosed,
} from '../../sales/purchase-intents/purchase-confirmation.service.ts';
import * as repo from './card-provider.repository.ts';

/** The webhook's name in the inbox (provider_events.provider) and in its URL. */
export const CARD_PROVIDER_EVENTS = 'card-provider';

interface StripeEventPayload {
  id?: unknown;
  type?: unknown;
  account?: unknown;
  data?: { object?: Record<string, unknown> };
}

const UUID = new RegExp(UUID_PATTERN);

/**
 * What a verified card-provider event does (the inbox calls it in the transaction that marks
 * the event processed; a failure is retried from the stored payload):
 * - account.updated: the connected account's charges_enabled and details_submitted;
 * - payment_intent.succeeded: the payment of the purchase intent its metadata names, recorded
 *   (amount_received, currency) only when the event comes from that intent's organization's
 *   connected account;
 * - payment_intent.payment_failed: logged; the intent stays PENDING and payable;
 * - payment_intent.canceled: the intent's session ended at the provider (a PENDING intent expires);
 * - anything else: acknowledged.
 */
export async function processCardEvent(db: Tx, deps: Deps, event: ProviderEventRow): Promise<void> {
  const payload = JSON.parse(event.payload) as StripeEventPayload;
  const object = payload.data?.object ?? {};
  const account = typeof payload.account === 'string' ? payload.account : null;
  const log = { providerEventId: event.id, eventId: event.event_id, type: event.event_type, account };
  switch (event.event_type) {
    case 'account.updated': {
      const accountId = typeof object.id === 'string' ? object.id : account;
      if (accountId === null) return;
      const connected = await repo.findConnectedAccountsById(db, accountId);
      if (connected.length === 0) {
        deps.logger.info(log, 'card provider: account.updated for an account no organization has');
        return;
      }
      for (const row of connected)
        await repo.setConnectedAccountState(db, row.organization_id, accountId, {
          charges_enabled: object.charges_enabled === true,
          details_submitted: object.details_submitted === true,
        });
      return;
    }
    case 'payment_intent.succeeded':
    case 'payment_intent.canceled':
    case 'payment_intent.payment_failed': {
      const target = await purchaseIntentOf(db, deps, object, account, log);
      if (!target) return;
      const reference = object.id as string;
      if (event.event_type === 'payment_intent.payment_failed') {
        deps.logger.info(
          { ...log, purchaseIntentId: target, paymentIntentId: reference },
          'card provider: a card payment failed; the purchase intent stays payable',
        );
        return;
      }
      if (event.event_type === 'payment_intent.canceled') {
        await recordPaymentClosed(db, deps, target, { provider: 'CARD_PROVIDER', reference });
        return;
      }
      const amount = object.amount_received ?? object.amount;
      if (
        typeof amount !== 'number' ||
        !Number.isSafeInteger(amount) ||
        typeof object.currency !== 'string'
      ) {
        deps.logger.warn(
          log,
          'card provider: payment_intent.succeeded without an amount or currency: ignored',
        );
        return;
      }
      const outcome = await recordPayment(db, deps, target, {
        provider: 'CARD_PROVIDER',
        reference,
        amount: BigInt(amount),
        currency: object.currency.toUpperCase(),
      });
      deps.logger.info(
        { ...log, purchaseIntentId: target, paymentIntentId: reference, outcome },
        'card provider: payment recorded',
      );
      return;
    }
    default:
      return;
  }
}

/**
 * The purchase intent a PaymentIntent event is about, when the event may act on it: the
 * metadata names an intent, and the event's account is that intent's organization's connected
 * account (now, or the one the PaymentIntent was created on). Anything else is logged and left.
 */
async function purchaseIntentOf(
  db: Executor,
  deps: Deps,
  object: Record<string, unknown>,
  account: string | null,
  log: Record<string, unknown>,
): Promise<string | undefined> {
  const metadata = (object.metadata ?? {}) as Record<string, unknown>;
  const intentId = metadata.purchase_intent_id;
  if (typeof object.id !== 'string' || typeof intentId !== 'string' || !UUID.test(intentId)) {
    deps.logger.info(log, 'card provider: a PaymentIntent event of no purchase intent: acknowledged');
    return undefined;
  }
  const owner = await purchaseIntentOwner(db, intentId);
  if (!owner) {
    deps.logger.warn(
      { ...log, purchaseIntentId: intentId },
      'card provider: event for an unknown purchase intent',
    );
    return undefined;
  }
  // The account the PaymentIntent was made on, if it is (or was) the organization's.
  const ownAccount =
    account !== null && account === owner.accountId
      ? await repo.findOrganizationAccount(db, owner.organizationId, account)
      : undefined;
  if (!ownAccount) {
    deps.logger.warn(
      { ...log, purchaseIntentId: intentId, organizationId: owner.organizationId },
      "card provider: event from an account that is not the purchase intent's organization's: ignored",
    );
    return undefined;
  }
  return intentId;
}
