import type { Deps, ExternalPaymentProvider, PaymentSession } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { PaymentMismatchRecord, PaymentProvider, PurchaseIntentRow } from '../../../db/schema.ts';
import { enqueue } from '../../../jobs/enqueue.ts';
import { ApiError } from '../../../lib/errors.ts';
import { eventWritten, hasEventSubscriber } from '../../platform/webhooks/webhook-events.service.ts';
import { findListing, sellHeld } from '../listings/listing-sales.service.ts';
import { emitListingEvent, endCoveredUnits } from '../listings/listings.service.ts';
import { deliverPurchaseIntentJob } from './purchase-intents.jobs.ts';
import * as repo from './purchase-intents.repository.ts';
import {
  assignItems,
  emitIntentEvent,
  endHold,
  enqueueSessionCancel,
  paymentReferenceOf,
  referenceColumns,
} from './purchase-intents.service.ts';

/**
 * An intent's payment: confirmation (the units sold, the items assigned, the delivery queued),
 * what a provider reports of its session (paid, closed, mismatched), and the session's attachment
 * to the intent or the intent's abandonment when the provider could not open one.
 */

export type ConfirmOutcome = 'CONFIRMED' | 'ALREADY_CONFIRMED' | 'UNRESOLVED';

/**
 * A payment confirmed (provider-independent; card and crypto events call this): PENDING →
 * CONFIRMED with the held units sold, the items assigned (ASSIGNED) and the delivery job queued
 * (keyed by the intent) in the caller's transaction. Idempotent: a confirmation seen again does
 * nothing. A payment for an intent EXPIRED or CANCELLED makes it UNRESOLVED: nothing is delivered.
 */
export async function confirmPurchaseIntent(
  db: Tx,
  deps: Deps,
  id: string,
  session?: { provider: ExternalPaymentProvider; reference: string },
): Promise<ConfirmOutcome> {
  const intent = await repo.lockIntent(db, id);
  if (!intent) throw new ApiError('NOT_FOUND', 'purchase intent not found');
  const references = session ? referenceColumns(session.provider, session.reference) : {};
  switch (intent.status) {
    case 'CONFIRMED':
      return 'ALREADY_CONFIRMED';
    case 'UNRESOLVED':
      return 'UNRESOLVED';
    case 'EXPIRED':
    case 'CANCELLED':
      await repo.updateIntent(db, id, { status: 'UNRESOLVED', ...references });
      await emitIntentEvent(db, id, 'purchase_intent.unresolved');
      return 'UNRESOLVED';
    case 'PENDING':
      break;
  }
  // The listing as read: the intent's hold keeps its units, and the items are taken without its
  // lock (assignItems); its row is written last, so its lock lasts from there to the commit.
  const listing = await findListing(db, intent.listing_id);
  if (!listing) throw new Error(`listing ${intent.listing_id} of purchase intent ${id} not found`);
  const itemIds = intent.item_ids.length > 0 ? intent.item_ids : await assignItems(db, intent, listing);
  await repo.updateIntent(db, id, {
    status: 'CONFIRMED',
    confirmed_at: new Date(),
    fulfillment_status: intent.fulfillment_method === 'VOUCHER' ? intent.fulfillment_status : 'ASSIGNED',
    item_ids: itemIds,
    ...references,
  });
  await emitIntentEvent(db, id, 'purchase_intent.confirmed');
  if (intent.fulfillment_method !== 'VOUCHER') await queueDelivery(db, id);
  const sold = await sellHeld(db, listing, intent.quantity, true);
  // Sold out: the listing keeps its ERC-1155 item only for the deliveries still owed (this one too).
  if (sold.status === 'COMPLETE') await endCoveredUnits(db, deps, listing.id);
  return 'CONFIRMED';
}

/** The intent's delivery job, queued once however often this runs (keyed by the intent). */
async function queueDelivery(db: Tx, id: string): Promise<void> {
  await enqueue(
    db,
    deliverPurchaseIntentJob,
    { purchase_intent_id: id },
    { jobKey: `deliver_purchase_intent:${id}` },
  );
}

/**
 * An email claim's free sale, sold with its intent in one statement (createHoldFirst), completed:
 * purchase_intent.created and .confirmed, its items assigned (ASSIGNED), its delivery queued;
 * when the listing is sold out, its covered units ended and listing.completed emitted, once
 * (`completed`: this sale took the last unit; undefined: not known, as in the sweep's recovery of
 * a sale a crash left, which looks for the event). Idempotent: a sale completed already is left
 * alone (false). No write of the listing's row: a drop's buyers never wait on each other here.
 */
export async function completeClaimSale(
  db: Tx,
  deps: Deps,
  id: string,
  completed?: boolean,
): Promise<boolean> {
  const intent = await repo.lockIntent(db, id);
  if (!intent || !isUnfinishedClaimSale(intent)) return false;
  const listing = await findListing(db, intent.listing_id);
  if (!listing) throw new Error(`listing ${intent.listing_id} of purchase intent ${id} not found`);
  // purchase_intent.created shows the intent as every sale's is created, PENDING, before
  // purchase_intent.confirmed shows it sold (an email claim's are both at once).
  await emitIntentEvent(db, intent, 'purchase_intent.created', (created) => ({
    ...created,
    status: 'PENDING',
  }));
  const itemIds = await assignItems(db, intent, listing);
  await repo.updateIntent(db, id, { fulfillment_status: 'ASSIGNED', item_ids: itemIds });
  await emitIntentEvent(db, id, 'purchase_intent.confirmed');
  await queueDelivery(db, id);
  if (listing.status === 'COMPLETE') {
    // Sold out: the listing keeps its ERC-1155 item only for the deliveries still owed.
    await endCoveredUnits(db, deps, listing.id);
    if (completed ?? !(await eventWritten(db, 'listing.completed', listing.id)))
      await emitListingEvent(db, listing.id, 'listing.completed');
  }
  return true;
}

/** An email claim's sale whose completion (completeClaimSale) has not run. */
export function isUnfinishedClaimSale(intent: PurchaseIntentRow): boolean {
  return (
    intent.payment_provider === 'EMAIL_CLAIM' &&
    intent.status === 'CONFIRMED' &&
    intent.fulfillment_status === 'PENDING'
  );
}

/**
 * What a provider's event about a purchase intent is checked against: the organization it belongs
 * to, its payment provider and session (the reference stored when the session opened), and the
 * provider account the session was opened on (its data's account_id, for card sessions).
 * Undefined for an unknown intent.
 */
export async function purchaseIntentOwner(
  db: Executor,
  id: string,
): Promise<
  | {
      organizationId: string;
      provider: PaymentProvider;
      reference: string | null;
      accountId: string | null;
    }
  | undefined
> {
  const intent = await repo.findIntent(db, id);
  if (!intent) return undefined;
  const account = (intent.data as { account_id?: unknown } | null)?.account_id;
  return {
    organizationId: intent.organization_id,
    provider: intent.payment_provider,
    reference: paymentReferenceOf(intent),
    accountId: typeof account === 'string' ? account : null,
  };
}

/** Why a reported payment does not fit the intent, or undefined when it does. */
function mismatchOf(intent: PurchaseIntentRow, paid: ReportedPayment): string | undefined {
  const stored = paymentReferenceOf(intent);
  const price = intent.provider_price as { amount: string; currency: string };
  if (intent.payment_provider !== paid.provider)
    return `paid through ${paid.provider}, but the intent is paid through ${intent.payment_provider}`;
  if (stored !== null && stored !== paid.reference)
    return `paid in session ${paid.reference}, not the intent's ${stored}`;
  if (price.currency.toUpperCase() !== paid.currency.toUpperCase())
    return `paid in ${paid.currency.toUpperCase()}, but the intent's price is in ${price.currency.toUpperCase()}`;
  if (BigInt(price.amount) !== paid.amount)
    return `paid ${paid.amount}, but the intent's price is ${price.amount} (smallest units of ${price.currency.toUpperCase()})`;
  return undefined;
}

/** A payment the provider reports: which provider, its session, and what was paid. */
export interface ReportedPayment {
  provider: ExternalPaymentProvider;
  /** The provider's session id (PaymentIntent, payment link) the payment belongs to. */
  reference: string;
  /** In the smallest unit of `currency` (cents). */
  amount: bigint;
  currency: string;
}

export type PaymentOutcome = 'CONFIRMED' | 'DUPLICATE' | 'UNRESOLVED' | 'MISMATCH' | 'UNKNOWN';

/**
 * A payment the provider reports (its event, or reconciliation asking it), in the caller's
 * transaction: a PENDING intent is CONFIRMED; one EXPIRED or CANCELLED becomes UNRESOLVED (nothing
 * is delivered: it waits for the organization); one confirmed or unresolved already is a DUPLICATE.
 * A payment that does not fit the intent (another provider or session, another amount or
 * currency) confirms nothing: it is recorded on the intent as its payment_mismatch, with
 * purchase_intent.payment_mismatch (once per payment: the same one reported again changes
 * nothing), and answers MISMATCH; UNKNOWN for an intent that does not exist.
 */
export async function recordPayment(
  db: Tx,
  deps: Deps,
  intentId: string,
  paid: ReportedPayment,
): Promise<PaymentOutcome> {
  const intent = await repo.lockIntent(db, intentId);
  if (!intent) return 'UNKNOWN';
  const reason = mismatchOf(intent, paid);
  if (reason !== undefined) {
    deps.logger.warn(
      {
        purchaseIntentId: intentId,
        provider: paid.provider,
        reference: paid.reference,
        amount: `${paid.amount}`,
        currency: paid.currency,
        reason,
      },
      'a reported payment does not match its purchase intent: recorded, nothing confirmed',
    );
    const mismatch: PaymentMismatchRecord = {
      provider: paid.provider,
      reference: paid.reference,
      amount: paid.amount.toString(),
      currency: paid.currency,
      reason,
      received_at: new Date().toISOString(),
    };
    const seen = intent.payment_mismatch;
    const again =
      seen !== null &&
      seen.provider === mismatch.provider &&
      seen.reference === mismatch.reference &&
      seen.amount === mismatch.amount &&
      seen.currency.toUpperCase() === mismatch.currency.toUpperCase();
    if (!again) {
      await repo.updateIntent(db, intentId, { payment_mismatch: mismatch });
      await emitIntentEvent(db, intent, 'purchase_intent.payment_mismatch');
    }
    return 'MISMATCH';
  }
  if (intent.status === 'CONFIRMED' || intent.status === 'UNRESOLVED') return 'DUPLICATE';
  const outcome = await confirmPurchaseIntent(db, deps, intentId, paid);
  if (outcome === 'UNRESOLVED')
    deps.logger.warn(
      { purchaseIntentId: intentId },
      'a payment arrived for an intent that had ended: UNRESOLVED',
    );
  return outcome === 'ALREADY_CONFIRMED' ? 'DUPLICATE' : outcome;
}

/**
 * The provider reports that the intent's session ended unpaid for good (cancelled, expired or
 * failed there): a PENDING intent of that session becomes EXPIRED and its hold ends. Anything else
 * is left alone (false).
 */
export async function recordPaymentClosed(
  db: Tx,
  _deps: Deps,
  intentId: string,
  session: { provider: ExternalPaymentProvider; reference: string },
): Promise<boolean> {
  const intent = await repo.lockIntent(db, intentId);
  if (intent?.status !== 'PENDING' || intent.payment_provider !== session.provider) return false;
  const stored = paymentReferenceOf(intent);
  if (stored !== null && stored !== session.reference) return false;
  await endHold(db, intent, 'EXPIRED');
  return true;
}

/**
 * The provider's session opened for a PENDING intent: stored with the buyer's `data`, and
 * purchase_intent.created emitted. An intent that ended while the provider answered (false) gets
 * its session cancelled by a job. With no endpoint subscribed to the event, a PENDING intent's
 * session is stored by one statement; otherwise under the intent's lock, in a transaction.
 */
export async function attachPaymentSession(
  db: Executor,
  intentId: string,
  provider: ExternalPaymentProvider,
  session: PaymentSession,
): Promise<{ attached: boolean; status: PurchaseIntentRow['status'] } | undefined> {
  const update = { ...referenceColumns(provider, session.reference), data: session.data };
  const alone = await repo.attachSessionAlone(db, intentId, update, (organizationId) =>
    hasEventSubscriber(organizationId, 'purchase_intent.created'),
  );
  if (alone) return { attached: true, status: 'PENDING' };
  return db.transaction().execute(async (tx) => {
    const locked = await repo.lockIntent(tx, intentId);
    if (!locked) return undefined;
    await repo.updateIntent(tx, intentId, update);
    if (locked.status !== 'PENDING') {
      await enqueueSessionCancel(tx, intentId);
      return { attached: false, status: locked.status };
    }
    await emitIntentEvent(tx, locked, 'purchase_intent.created');
    return { attached: true, status: locked.status };
  });
}
