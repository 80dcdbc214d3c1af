import { timingSafeEqual } from 'node:crypto';
import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import type { ExternalPaymentProvider } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { ListingRow, PurchaseIntentRow } from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { enqueue } from '../../../jobs/enqueue.ts';
import { ApiError } from '../../../lib/errors.ts';
import { randomSample } from '../../../lib/random.ts';
import { sha256 } from '../../../lib/secrets.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import {
  itemsHeldBy,
  moveReservations,
  releaseReservations,
  takeHeldItems,
} from '../../catalog/items/item-flows.service.ts';
import { emitEvent } from '../../platform/webhooks/webhook-events.service.ts';
import { lockListingForSale, releaseHold } from '../listings/listing-sales.service.ts';
import { policyOf } from '../listings/listings.service.ts';
import { cancelPaymentSessionJob } from './purchase-intents.jobs.ts';
import * as repo from './purchase-intents.repository.ts';
import type {
  ListPurchaseIntentsQuery,
  PublicPurchaseIntent,
  PurchaseIntent,
} from './purchase-intents.schemas.ts';

/**
 * Purchase intents (docs/api.md#purchase-intents). An intent holds units of a listing (the
 * listing's quantity_held counter, taken by one conditional update under the listing's row lock)
 * until it is CONFIRMED (paid: the units are sold), EXPIRED or CANCELLED (the hold ends).
 * Confirmation assigns the items (moved from the listing's reservation to the intent) and queues
 * the delivery job, keyed by the intent, in the same transaction: a confirmation processed twice
 * or a worker that dies between confirmation and delivery still delivers exactly once.
 */

export function toPurchaseIntent(row: PurchaseIntentRow): PurchaseIntent {
  return {
    id: row.id,
    listing_id: row.listing_id,
    quantity: row.quantity,
    status: row.status,
    fulfillment_status: row.fulfillment_status,
    fulfillment_method: row.fulfillment_method,
    payment_provider: row.payment_provider,
    email: row.email,
    eth_address: row.eth_address,
    item_ids: row.item_ids,
    item_claim_ids: row.item_claim_ids,
    transaction_ids: row.transaction_ids,
    provider_price: row.provider_price as PurchaseIntent['provider_price'],
    card_provider_payment_intent_id: row.card_provider_payment_intent_id,
    crypto_provider_charge_id: row.crypto_provider_charge_id,
    fulfillment_error: row.fulfillment_error,
    payment_mismatch: row.payment_mismatch,
    created_at: iso(row.created_at),
    expiration: iso(row.expiration),
    confirmed_at: iso(row.confirmed_at),
  };
}

type IntentEventType =
  | 'purchase_intent.created'
  | 'purchase_intent.confirmed'
  | 'purchase_intent.expired'
  | 'purchase_intent.fulfilled'
  | 'purchase_intent.unresolved'
  | 'purchase_intent.payment_mismatch';

/**
 * A purchase_intent.* event, in the transaction of the change, with the intent as the admin API
 * shows it after the change (read only when an endpoint subscribes). Each caller emits only on the
 * transition itself, with the intent's row locked, so a path that runs again (a confirmation seen
 * twice, a job retried) emits nothing.
 */
export async function emitIntentEvent(
  db: Executor,
  intent: string | Pick<PurchaseIntentRow, 'id' | 'organization_id'>,
  type: IntentEventType,
  shown: (intent: PurchaseIntent) => PurchaseIntent = (shownAsIs) => shownAsIs,
): Promise<void> {
  const { id, organization_id } = typeof intent === 'string' ? (await repo.findIntent(db, intent))! : intent;
  await emitEvent(db, {
    organizationId: organization_id,
    type,
    resourceId: id,
    data: async () => shown(toPurchaseIntent((await repo.findIntent(db, id))!)),
  });
}

function toPublicPurchaseIntent(row: PurchaseIntentRow): PublicPurchaseIntent {
  return {
    id: row.id,
    listing_id: row.listing_id,
    quantity: row.quantity,
    status: row.status,
    fulfillment_status: row.fulfillment_status,
    fulfillment_method: row.fulfillment_method,
    payment_provider: row.payment_provider,
    provider_price: row.provider_price as PurchaseIntent['provider_price'],
    data: row.data,
    item_claim_ids: row.item_claim_ids,
    transaction_ids: row.transaction_ids,
    created_at: iso(row.created_at),
    expiration: iso(row.expiration),
  };
}

/**
 * Chooses the intent's items among those the listing still holds and moves them to the intent:
 * the lowest token ids (FCFS), or drawn at random (RANDOM). Concurrent assignments of one
 * listing take distinct items without waiting on each other or on the listing's row.
 */
export async function assignItems(db: Tx, intent: PurchaseIntentRow, listing: ListingRow): Promise<string[]> {
  const collection = await findCollection(db, listing.collection_id);
  if (collection?.token_type === 'ERC1155') return listing.item_id === null ? [] : [listing.item_id];
  const random = policyOf(listing).item_assignment_strategy === 'RANDOM';
  const chosen = await takeHeldItems(db, listing.id, intent.quantity, random ? randomSample : undefined);
  if (chosen.length < intent.quantity)
    throw new Error(`listing ${listing.id} holds ${chosen.length} items for an intent of ${intent.quantity}`);
  await moveReservations(db, {
    from: listing.id,
    kind: 'PURCHASE_INTENT',
    to: new Map(chosen.map((itemId) => [itemId, intent.id])),
  });
  return chosen;
}

/** The provider's session id stored on the intent: null until it opened, and for intents paid without one. */
export function paymentReferenceOf(intent: PurchaseIntentRow): string | null {
  if (intent.payment_provider === 'CARD_PROVIDER') return intent.card_provider_payment_intent_id;
  if (intent.payment_provider === 'CRYPTO_PROVIDER') return intent.crypto_provider_charge_id;
  return null;
}

export function referenceColumns(provider: ExternalPaymentProvider, reference: string) {
  return provider === 'CARD_PROVIDER'
    ? { card_provider_payment_intent_id: reference }
    : { crypto_provider_charge_id: reference };
}

/** Ends the provider's session of an intent that ended here, once committed (keyed by the intent). */
export async function enqueueSessionCancel(db: Executor, intentId: string): Promise<void> {
  await enqueue(
    db,
    cancelPaymentSessionJob,
    { purchase_intent_id: intentId },
    { jobKey: `cancel_payment_session:${intentId}` },
  );
}

/**
 * Ends a PENDING intent's hold: the units return to the listing, assigned items to its
 * reservation. An intent that expires emits purchase_intent.expired (callers end a hold once: the
 * intent is locked and PENDING, or CANCELLED with its voucher's item still held).
 */
export async function endHold(
  db: Tx,
  intent: PurchaseIntentRow,
  status: 'EXPIRED' | 'CANCELLED',
): Promise<void> {
  await repo.updateIntent(db, intent.id, { status });
  if (paymentReferenceOf(intent) !== null) await enqueueSessionCancel(db, intent.id);
  const listing = await lockListingForSale(db, intent.listing_id);
  await releaseHold(db, listing.id, intent.quantity);
  if (intent.item_ids.length > 0) await returnItems(db, intent, listing);
  if (status === 'EXPIRED') await emitIntentEvent(db, intent.id, 'purchase_intent.expired');
}

async function returnItems(db: Executor, intent: PurchaseIntentRow, listing: ListingRow): Promise<void> {
  if (listing.status === 'ACTIVE' || listing.status === 'PENDING_TX') {
    const held = await itemsHeldBy(db, intent.id);
    await moveReservations(db, {
      from: intent.id,
      kind: 'LISTING',
      to: new Map(held.map((h) => [h.item.id, listing.id])),
    });
  } else {
    await releaseReservations(db, intent.id);
  }
  await repo.updateIntent(db, intent.id, { item_ids: [] });
}

/** One intent's expiry: a PENDING intent past its expiration becomes EXPIRED (idempotent). */
export async function expirePurchaseIntent(db: Tx, id: string): Promise<boolean> {
  const intent = await repo.lockIntent(db, id);
  if (intent?.status !== 'PENDING' || intent.expiration > new Date()) return false;
  // A voucher stays redeemable until the chain says it expired: its watcher ends the hold.
  if (intent.payment_provider === 'MINT_VOUCHER') return false;
  await endHold(db, intent, 'EXPIRED');
  return true;
}

/**
 * The sweep's transaction: every due PENDING intent without a provider session expires, but one
 * whose creation never finished (isUnfinished), which is dropped.
 */
export async function expireDuePurchaseIntents(db: Tx, batch = 500): Promise<number> {
  const due = await repo.lockDueIntents(db, batch);
  for (const intent of due) {
    if (isUnfinished(intent)) await dropLocked(db, intent);
    else await endHold(db, intent, 'EXPIRED');
  }
  return due.length;
}

/**
 * Whether a PENDING intent's creation is unfinished: nobody was told of it yet. A card or crypto
 * intent whose session never opened, a mint voucher not yet signed. (An email claim's intent is
 * never left PENDING: it is sold with its intent, or held and confirmed in one transaction.)
 */
export function isUnfinished(intent: PurchaseIntentRow): boolean {
  if (intent.payment_provider === 'MINT_VOUCHER') return intent.data === null;
  return paymentReferenceOf(intent) === null;
}

/**
 * An intent whose creation failed or never finished goes with its hold (and its assigned items
 * back to the listing), as if the request had never come; one that is no longer PENDING or has
 * finished (its session opened, its voucher signed) is kept. True when it went.
 */
export async function dropUnfinishedIntent(db: Tx, id: string): Promise<boolean> {
  const intent = await repo.lockIntent(db, id);
  if (intent?.status !== 'PENDING' || !isUnfinished(intent)) return false;
  await dropLocked(db, intent);
  return true;
}

async function dropLocked(db: Tx, intent: PurchaseIntentRow): Promise<void> {
  const listing = await lockListingForSale(db, intent.listing_id);
  await releaseHold(db, listing.id, intent.quantity);
  if (intent.item_ids.length > 0) await returnItems(db, intent, listing);
  await repo.deleteIntent(db, intent.id);
}

/** Units of a listing's CONFIRMED intents whose delivery has not ended (see endCoveredUnits). */
export function unitsInDelivery(db: Executor, listingId: string): Promise<bigint> {
  return repo.unitsInDelivery(db, listingId);
}

/** Locks a listing's PENDING intents (id order), before its cancel locks the listing. */
export async function lockPendingIntentsOfListing(db: Tx, listingId: string): Promise<void> {
  await repo.lockPendingIntentsOfListing(db, listingId);
}

/**
 * A cancelled listing's PENDING intents become CANCELLED and their holds end, but a MINT_VOUCHER
 * intent's: a signed voucher stays redeemable, so its unit and item stay held until the voucher
 * ends on chain (its watcher ends the hold then).
 */
export async function cancelPendingIntentsOfListing(db: Tx, listingId: string): Promise<void> {
  const pending = await repo.lockPendingIntentsOfListing(db, listingId);
  for (const intent of pending) {
    if (intent.payment_provider === 'MINT_VOUCHER' && intent.data !== null) {
      await repo.updateIntent(db, intent.id, { status: 'CANCELLED' });
      continue;
    }
    await repo.updateIntent(db, intent.id, { status: 'CANCELLED', item_ids: [] });
    await releaseHold(db, listingId, intent.quantity);
    await releaseReservations(db, intent.id);
    if (paymentReferenceOf(intent) !== null) await enqueueSessionCancel(db, intent.id);
  }
}

async function lockByClientToken(
  db: Tx,
  id: string,
  clientToken: string | undefined,
): Promise<PurchaseIntentRow> {
  const intent = await repo.lockIntent(db, id);
  // A wrong token answers like an unknown intent: nothing about other buyers' intents leaks.
  if (!intent || clientToken === undefined || !timingSafeEqual(intent.client_token_hash, sha256(clientToken)))
    throw new ApiError('NOT_FOUND', 'purchase intent not found');
  return intent;
}

export async function getPublicPurchaseIntent(
  db: Executor,
  id: string,
  clientToken: string | undefined,
): Promise<PublicPurchaseIntent> {
  const intent = await repo.findIntent(db, id);
  if (!intent || clientToken === undefined || !timingSafeEqual(intent.client_token_hash, sha256(clientToken)))
    throw new ApiError('NOT_FOUND', 'purchase intent not found');
  return toPublicPurchaseIntent(intent);
}

/** The buyer cancels its PENDING intent (else INVALID_STATE); the hold ends. */
export async function cancelPublicPurchaseIntent(
  db: Tx,
  id: string,
  clientToken: string | undefined,
): Promise<void> {
  const intent = await lockByClientToken(db, id, clientToken);
  if (intent.status !== 'PENDING')
    throw new ApiError('INVALID_STATE', `a ${intent.status} purchase intent cannot be cancelled`);
  // A signed voucher cannot be withdrawn: the hold and the item stay until it ends on chain
  // (a redemption then is UNRESOLVED), so no unit is sold twice.
  if (intent.payment_provider === 'MINT_VOUCHER')
    await repo.updateIntent(db, intent.id, { status: 'CANCELLED' });
  else await endHold(db, intent, 'CANCELLED');
}

export async function getPurchaseIntent(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<PurchaseIntent> {
  const intent = await repo.findIntent(db, id);
  if (!intent) throw new ApiError('NOT_FOUND', 'purchase intent not found');
  assertOrganizationAccess(principal, intent.organization_id, 'purchase intent');
  return toPurchaseIntent(intent);
}

export async function listPurchaseIntents(
  db: Executor,
  principal: Principal,
  query: ListPurchaseIntentsQuery,
): Promise<PageResult<PurchaseIntent>> {
  const page = await repo.listIntents(db, query as PageParams, {
    organizationId: isPlatformAdmin(principal) ? undefined : principal.organizationId,
    itemId: query.item_id,
    collectionId: query.collection_id,
    listingId: query.listing_id,
    statuses: query.status,
    email: query.email,
    ethAddress:
      query.eth_address === undefined ? undefined : checkedAddress(query.eth_address, '/eth_address'),
    fulfillmentStatuses: query.fulfillment_status,
    fulfillmentMethods: query.fulfillment_method,
    providers: query.payment_provider,
    paymentMismatch: query.payment_mismatch,
  });
  return { ...page, results: page.results.map(toPurchaseIntent) };
}
