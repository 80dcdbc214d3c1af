import { timingSafeEqual } from 'node:crypto';
import { type Address, getAddress, zeroAddress } from 'viem';
import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import type { Deps, TokenFlowOwner, VoucherHolder } from '../../../context.ts';
import {
  type ExternalPaymentProvider,
  isExternalPaymentProvider,
  type PaymentSession,
  paymentSessionsOf,
} from '../../../context.ts';
import { logFlushed, transactionFlushedAfterUnlock } from '../../../db/database.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type {
  FulfillmentMethod,
  ItemRow,
  ListingRow,
  MintVoucherRow,
  PaymentProvider,
  PurchaseIntentRow,
} from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import type { RateLimit } from '../../../http/rate-limit.ts';
import { iso } from '../../../http/schemas.ts';
import { enqueue } from '../../../jobs/enqueue.ts';
import { ApiError } from '../../../lib/errors.ts';
import { randomToken, uuidv7 } from '../../../lib/ids.ts';
import { sha256 } from '../../../lib/secrets.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import {
  itemsHeldBy,
  lockItems,
  moveReservations,
  releaseReservations,
} from '../../catalog/items/item-flows.service.ts';
import { findTransaction } from '../../platform/transactions/transactions.service.ts';
import { emitEvent, hasEventSubscriber } from '../../platform/webhooks/webhook-events.service.ts';
import { issueVoucher } from '../../tokens/mint-vouchers/mint-vouchers.service.ts';
import {
  contractForFlow,
  hasOpenTokenRequests,
  startTokenFlow,
} from '../../tokens/token-flows/token-flows.service.ts';
import { createSaleClaim } from '../email-claims/email-claims.service.ts';
import { POLICY_LIMITS } from '../listings/listings.schemas.ts';
import {
  addHold,
  endCoveredUnits,
  findListingForSale,
  findListingForSaleCounting,
  lockListingForSale,
  notSellingReason,
  onAllowList,
  paymentTokenAddress,
  policyOf,
  releaseHold,
  sellHeld,
  unitsOfBuyer,
} from '../listings/listings.service.ts';
import { cancelPaymentSessionJob, deliverPurchaseIntentJob } from './purchase-intents.jobs.ts';
import * as repo from './purchase-intents.repository.ts';
import type {
  CreatedPurchaseIntent,
  CreatePurchaseIntentBody,
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

/** Rate limits of intent creation (mutable for tests that drive load through one address). */
export const LIMITS: { perIp: RateLimit; perBuyer: RateLimit } = {
  perIp: { name: 'purchase_intent_ip', max: 60, windowSeconds: 60 },
  perBuyer: { name: 'purchase_intent_buyer', max: 10, windowSeconds: 60 },
};

function invalid(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path.replace(/^\//, '')}: ${message}`, {
    fields: [{ path, message }],
  });
}

function providerPrice(listing: ListingRow, quantity: number) {
  return { amount: (BigInt(listing.price) * BigInt(quantity)).toString(), currency: listing.currency };
}

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
  | 'purchase_intent.unresolved';

/**
 * A purchase_intent.* event, in the transaction of the change, with the intent as the admin API
 * shows it after the change (read only when an endpoint subscribes). Each caller emits only on the
 * transition itself, with the intent's row locked, so a path that runs again (a confirmation seen
 * twice, a job retried) emits nothing.
 */
async function emitIntentEvent(
  db: Executor,
  intent: string | Pick<PurchaseIntentRow, 'id' | 'organization_id'>,
  type: IntentEventType,
): Promise<void> {
  const { id, organization_id } = typeof intent === 'string' ? (await repo.findIntent(db, intent))! : intent;
  await emitEvent(db, {
    organizationId: organization_id,
    type,
    resourceId: id,
    data: async () => toPurchaseIntent((await repo.findIntent(db, id))!),
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

interface Buyer {
  email: string | null;
  ethAddress: Address | null;
}

function buyerOf(body: CreatePurchaseIntentBody): Buyer {
  return {
    email: body.buyer.email ?? null,
    ethAddress:
      body.buyer.eth_address === undefined
        ? null
        : checkedAddress(body.buyer.eth_address, '/buyer/eth_address'),
  };
}

/**
 * The rate limits of an intent's creation counted (a refused request counts too: per client
 * address and per buyer, email lower-case and address) and its listing read, in one statement on
 * the pool: 429 RATE_LIMITED, then 404. createPurchaseIntent takes the listing read.
 */
export function limitAndFindListing(
  db: Executor,
  body: CreatePurchaseIntentBody,
  ip: string,
): Promise<ListingRow> {
  const buyer = buyerOf(body);
  return findListingForSaleCounting(db, body.listing_id, [
    { limit: LIMITS.perIp, subject: ip },
    ...(buyer.email !== null
      ? [{ limit: LIMITS.perBuyer, subject: `email:${buyer.email.toLowerCase()}` }]
      : []),
    ...(buyer.ethAddress !== null
      ? [{ limit: LIMITS.perBuyer, subject: `address:${buyer.ethAddress}` }]
      : []),
  ]);
}

function fulfillmentMethodOf(provider: PaymentProvider, buyer: Buyer): FulfillmentMethod {
  if (provider === 'MINT_VOUCHER') return 'VOUCHER';
  // An email claim sale is delivered by email whatever else the buyer gave.
  if (provider === 'EMAIL_CLAIM') return 'EMAIL';
  return buyer.ethAddress !== null ? 'TRANSFER' : 'EMAIL';
}

/** The provider's override, else the policy's length, else the provider's default, else 900. */
async function sessionSeconds(
  db: Executor,
  deps: Deps,
  listing: ListingRow,
  provider: PaymentProvider,
): Promise<number> {
  const session = policyOf(listing).payment_session_duration;
  const seconds =
    session.provider_override[provider] ??
    session.timeout_seconds ??
    (isExternalPaymentProvider(provider)
      ? await paymentSessionsOf(deps, provider).defaultSessionSeconds(db, deps, listing.organization_id)
      : undefined);
  return seconds ?? POLICY_LIMITS.defaultSessionSeconds;
}

/**
 * Create, in the order of docs/api.md#purchase-intents: the listing (404), ACTIVE and in its
 * window (422 NOT_ELIGIBLE), the provider (400), the quantity (400), the buyer's fields for the
 * provider (400), the allow list and max_per_user (422 NOT_ELIGIBLE), units available (422
 * INSUFFICIENT_SUPPLY). Returns once the intent is on disk: its payment session may be opened.
 *
 * Every buyer of a listing queues on the listing's row, so the row is locked as briefly as can be,
 * and never through a disk write (the commit does not wait for it; the return does). A card or
 * crypto hold without a per-buyer cap is one statement after the checks (holdInOneStatement);
 * any other takes the lock for its checks, so a buyer's concurrent intents cannot pass
 * max_per_user together either, and for the work that goes with it (a voucher, a claim).
 */
export async function createPurchaseIntent(
  db: Executor,
  deps: Deps,
  body: CreatePurchaseIntentBody,
  listing: ListingRow,
): Promise<NewPurchaseIntent> {
  if (holdsInOneStatement(listing, body.provider)) return createInOneStatement(db, deps, body, listing);
  return transactionFlushedAfterUnlock(db, (tx) => createUnderLock(tx, deps, body));
}

function holdsInOneStatement(listing: ListingRow, provider: PaymentProvider): boolean {
  return (
    isExternalPaymentProvider(provider) &&
    listing.payment_providers.includes(provider) &&
    policyOf(listing).max_per_user === null
  );
}

/** The checks made of every intent before its hold (all but max_per_user); answers its buyer. */
function checkPurchase(listing: ListingRow, body: CreatePurchaseIntentBody): Buyer {
  assertSelling(listing);
  const provider = body.provider;
  if (!listing.payment_providers.includes(provider))
    throw invalid('/provider', `the listing sells through ${listing.payment_providers.join(', ')}`);
  if (body.quantity > listing.max_quantity_per_tx)
    throw invalid('/quantity', `at most ${listing.max_quantity_per_tx} per purchase`);
  if (provider === 'MINT_VOUCHER' && body.quantity !== 1)
    throw invalid('/quantity', 'a mint voucher mints one item: quantity must be 1');
  const buyer = buyerOf(body);
  if (provider === 'MINT_VOUCHER' && buyer.ethAddress === null)
    throw invalid('/buyer/eth_address', 'MINT_VOUCHER needs the minting address');
  if (provider === 'EMAIL_CLAIM' && buyer.email === null)
    throw invalid('/buyer/email', 'EMAIL_CLAIM needs an email address');
  if (buyer.email === null && buyer.ethAddress === null) throw invalid('/buyer', 'give email or eth_address');
  if (!onAllowList(listing, buyer)) throw new ApiError('NOT_ELIGIBLE', 'the buyer is not on the allow list');
  return buyer;
}

function insufficientSupply(quantity: number): ApiError {
  return new ApiError('INSUFFICIENT_SUPPLY', `fewer than ${quantity} units are available`);
}

/** The new intent's row, PENDING until `expiration`, and the client token given to its buyer. */
function newIntent(
  listing: ListingRow,
  body: CreatePurchaseIntentBody,
  buyer: Buyer,
  expiration: Date,
): { row: repo.NewPurchaseIntent; clientToken: string } {
  const clientToken = randomToken();
  return {
    clientToken,
    row: {
      id: uuidv7(),
      organization_id: listing.organization_id,
      listing_id: listing.id,
      quantity: body.quantity,
      status: 'PENDING',
      fulfillment_method: fulfillmentMethodOf(body.provider, buyer),
      payment_provider: body.provider,
      email: buyer.email,
      eth_address: buyer.ethAddress,
      client_token_hash: sha256(clientToken),
      provider_price: providerPrice(listing, body.quantity),
      expiration,
    },
  };
}

function answerOf(
  row: repo.NewPurchaseIntent,
  clientToken: string,
  data: Record<string, unknown> | null,
): CreatedPurchaseIntent {
  return {
    id: row.id,
    status: row.payment_provider === 'EMAIL_CLAIM' ? 'CONFIRMED' : 'PENDING',
    expiration: iso(row.expiration),
    client_token: clientToken,
    fulfillment_method: row.fulfillment_method,
    provider_price: row.provider_price as CreatedPurchaseIntent['provider_price'],
    data,
  };
}

/**
 * A card or crypto intent: checked against the listing as read, then the hold and the intent in
 * one statement, which holds only while the listing is still ACTIVE (a cancel that committed
 * first wins) and has the units. A listing read with too few units is refused
 * before anything is written.
 */
async function createInOneStatement(
  db: Executor,
  deps: Deps,
  body: CreatePurchaseIntentBody,
  listing: ListingRow,
): Promise<NewPurchaseIntent> {
  const buyer = checkPurchase(listing, body);
  if (listing.quantity_held + listing.quantity_sold + body.quantity > listing.quantity_listed)
    throw insufficientSupply(body.quantity);
  const expiration = new Date(Date.now() + (await sessionSeconds(db, deps, listing, body.provider)) * 1000);
  const { row, clientToken } = newIntent(listing, body, buyer, expiration);
  // The provider's session is opened once this is on disk (openPaymentSession), and
  // purchase_intent.created follows it; the expiry sweep ends the hold if nobody pays.
  const inserted = await repo.insertIntentWithHold(db, row);
  if (!inserted) {
    assertSelling(await findListingForSale(db, listing.id));
    throw insufficientSupply(body.quantity);
  }
  await logFlushed(db);
  return { answer: answerOf(row, clientToken, null), intent: inserted, listing };
}

/** Any other intent: checked, held and made under the listing's row lock, in `db`'s transaction. */
async function createUnderLock(
  db: Tx,
  deps: Deps,
  body: CreatePurchaseIntentBody,
): Promise<NewPurchaseIntent> {
  const listing = await lockListingForSale(db, body.listing_id);
  const buyer = checkPurchase(listing, body);
  const provider = body.provider;
  const maxPerUser = policyOf(listing).max_per_user;
  if (maxPerUser !== null) {
    const owned = await unitsOfBuyer(db, listing.id, buyer);
    if (owned + body.quantity > maxPerUser)
      throw new ApiError(
        'NOT_ELIGIBLE',
        `at most ${maxPerUser} units per buyer; ${owned} held or bought already`,
      );
  }
  const expiration = new Date(Date.now() + (await sessionSeconds(db, deps, listing, provider)) * 1000);
  if (!(await addHold(db, listing.id, body.quantity))) throw insufficientSupply(body.quantity);
  if (
    provider === 'MINT_VOUCHER' &&
    (await repo.pendingVoucherIntentOf(db, listing.collection_id, buyer.ethAddress!))
  )
    throw new ApiError('INVALID_STATE', 'this address has a pending mint voucher for the contract');

  const { row, clientToken } = newIntent(listing, body, buyer, expiration);
  const inserted = await repo.insertIntent(db, row);
  let data: Record<string, unknown> | null = null;
  // purchase_intent.created shows the intent as created (a voucher's item assigned), before
  // an EMAIL_CLAIM sale's purchase_intent.confirmed.
  if (provider === 'EMAIL_CLAIM') {
    await emitIntentEvent(db, inserted, 'purchase_intent.created');
    await confirmPurchaseIntent(db, deps, row.id);
  } else if (provider === 'MINT_VOUCHER') {
    // The voucher's watcher ends the hold when the voucher expires on chain.
    data = await issueVoucherFor(db, deps, row.id);
    await emitIntentEvent(db, inserted, 'purchase_intent.created');
  }
  // CARD_PROVIDER, CRYPTO_PROVIDER (with max_per_user): as createInOneStatement's.
  return { answer: answerOf(row, clientToken, data), intent: inserted, listing };
}

/**
 * A created intent: the answer to its buyer, and the rows it was made from (the listing as read
 * before the hold), for opening its payment session without reading them again.
 */
export interface NewPurchaseIntent {
  answer: CreatedPurchaseIntent;
  intent: PurchaseIntentRow;
  listing: ListingRow;
}

/** 422 NOT_ELIGIBLE unless the listing sells now (ACTIVE, inside its window). */
function assertSelling(listing: ListingRow): void {
  const notSelling = notSellingReason(listing);
  if (notSelling !== undefined)
    throw new ApiError(
      'NOT_ELIGIBLE',
      `the listing does not sell now (${notSelling.toLowerCase().replace('_', ' ')})`,
    );
}

/**
 * MINT_VOUCHER's data: the item is assigned now (its token id is signed into the voucher) and
 * moved from the listing's reservation to the intent; the voucher is signed by the organization's
 * wallet for the buyer's address, priced at the listing's price, expiring with the intent.
 */
async function issueVoucherFor(db: Executor, deps: Deps, id: string): Promise<Record<string, unknown>> {
  const intent = (await repo.lockIntent(db, id))!;
  const listing = await lockListingForSale(db, intent.listing_id);
  const [itemId] = await assignItems(db, intent, listing);
  const currency = listing.currency === 'ETH' ? zeroAddress : await paymentTokenAddress(db, listing);
  const issued = await issueVoucher(db, deps, {
    organizationId: listing.organization_id,
    collectionId: listing.collection_id,
    itemId: itemId!,
    minter: getAddress(intent.eth_address!),
    quantity: 1n,
    price: BigInt(listing.price) * BigInt(intent.quantity),
    currency,
    expiry: intent.expiration,
    holder: { kind: 'PURCHASE_INTENT', id },
  });
  const data = issued.data as unknown as Record<string, unknown>;
  await repo.updateIntent(db, id, { item_ids: [itemId!], data });
  return data;
}

/** Chooses the intent's items among those the listing still holds and moves them to the intent. */
async function assignItems(db: Executor, intent: PurchaseIntentRow, listing: ListingRow): Promise<string[]> {
  const collection = await findCollection(db, listing.collection_id);
  if (collection?.token_type === 'ERC1155') return listing.item_id === null ? [] : [listing.item_id];
  const held = (await itemsHeldBy(db, listing.id)).map((h) => h.item);
  const ordered =
    policyOf(listing).item_assignment_strategy === 'RANDOM'
      ? held
          .map((item) => ({ item, key: Math.random() }))
          .sort((a, b) => a.key - b.key)
          .map((e) => e.item)
      : held.sort((a, b) => compareTokenIds(a, b));
  const chosen = ordered.slice(0, intent.quantity);
  if (chosen.length < intent.quantity)
    throw new Error(`listing ${listing.id} holds ${chosen.length} items for an intent of ${intent.quantity}`);
  await moveReservations(db, {
    from: listing.id,
    kind: 'PURCHASE_INTENT',
    to: new Map(chosen.map((item) => [item.id, intent.id])),
  });
  return chosen.map((item) => item.id);
}

function compareTokenIds(a: ItemRow, b: ItemRow): number {
  if (a.token_id === null || b.token_id === null) return a.token_id === null ? 1 : -1;
  const x = BigInt(a.token_id);
  const y = BigInt(b.token_id);
  return x < y ? -1 : x > y ? 1 : 0;
}

export type ConfirmOutcome = 'CONFIRMED' | 'ALREADY_CONFIRMED' | 'UNRESOLVED';

/**
 * A payment confirmed (provider-independent; card and crypto events call this): PENDING →
 * CONFIRMED with the held units sold, the items assigned (ASSIGNED) and the delivery job queued
 * (keyed by the intent) in the caller's transaction. Idempotent: a confirmation seen again does
 * nothing. A payment for an intent EXPIRED or CANCELLED makes it UNRESOLVED: nothing is delivered.
 */
export async function confirmPurchaseIntent(
  db: Executor,
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
  const listing = await lockListingForSale(db, intent.listing_id);
  const sold = await sellHeld(db, listing, intent.quantity, true);
  const itemIds = intent.item_ids.length > 0 ? intent.item_ids : await assignItems(db, intent, listing);
  await repo.updateIntent(db, id, {
    status: 'CONFIRMED',
    confirmed_at: new Date(),
    fulfillment_status: intent.fulfillment_method === 'VOUCHER' ? intent.fulfillment_status : 'ASSIGNED',
    item_ids: itemIds,
    ...references,
  });
  // Sold out: the listing keeps its ERC-1155 item only for the deliveries still owed (this one too).
  if (sold.status === 'COMPLETE') await endCoveredUnits(db, deps, listing.id);
  await emitIntentEvent(db, id, 'purchase_intent.confirmed');
  if (intent.fulfillment_method !== 'VOUCHER')
    await enqueue(
      db,
      deliverPurchaseIntentJob,
      { purchase_intent_id: id },
      { jobKey: `deliver_purchase_intent:${id}` },
    );
  return 'CONFIRMED';
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

/** The provider's session id stored on the intent: null until it opened, and for intents paid without one. */
export function paymentReferenceOf(intent: PurchaseIntentRow): string | null {
  if (intent.payment_provider === 'CARD_PROVIDER') return intent.card_provider_payment_intent_id;
  if (intent.payment_provider === 'CRYPTO_PROVIDER') return intent.crypto_provider_charge_id;
  return null;
}

function referenceColumns(provider: ExternalPaymentProvider, reference: string) {
  return provider === 'CARD_PROVIDER'
    ? { card_provider_payment_intent_id: reference }
    : { crypto_provider_charge_id: reference };
}

/**
 * A payment the provider reports (its event, or reconciliation asking it), in the caller's
 * transaction: a PENDING intent is CONFIRMED; one EXPIRED or CANCELLED becomes UNRESOLVED (nothing
 * is delivered: it waits for the organization); one confirmed or unresolved already is a DUPLICATE.
 * A payment that does not fit the intent (another provider or session, another amount or
 * currency) changes nothing: MISMATCH, and UNKNOWN for an intent that does not exist.
 */
export async function recordPayment(
  db: Executor,
  deps: Deps,
  intentId: string,
  paid: ReportedPayment,
): Promise<PaymentOutcome> {
  const intent = await repo.lockIntent(db, intentId);
  if (!intent) return 'UNKNOWN';
  const stored = paymentReferenceOf(intent);
  const price = intent.provider_price as { amount: string; currency: string };
  const fits =
    intent.payment_provider === paid.provider &&
    (stored === null || stored === paid.reference) &&
    BigInt(price.amount) === paid.amount &&
    price.currency.toUpperCase() === paid.currency.toUpperCase();
  if (!fits) {
    deps.logger.warn(
      {
        purchaseIntentId: intentId,
        provider: paid.provider,
        reference: paid.reference,
        amount: `${paid.amount}`,
        currency: paid.currency,
      },
      'a reported payment does not match its purchase intent: ignored',
    );
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
  db: Executor,
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

/**
 * The provider could not open the session: the intent and its hold go, as if the request had
 * never come (nothing was shown to anyone about it yet). An intent that has its session already
 * (a create retried) is kept.
 */
export async function abandonPurchaseIntent(db: Executor, intentId: string): Promise<void> {
  const intent = await repo.lockIntent(db, intentId);
  if (intent?.status !== 'PENDING' || paymentReferenceOf(intent) !== null) return;
  const listing = await lockListingForSale(db, intent.listing_id);
  await releaseHold(db, listing.id, intent.quantity);
  await repo.deleteIntent(db, intentId);
}

/** Ends the provider's session of an intent that ended here, once committed (keyed by the intent). */
async function enqueueSessionCancel(db: Executor, intentId: string): Promise<void> {
  await enqueue(
    db,
    cancelPaymentSessionJob,
    { purchase_intent_id: intentId },
    { jobKey: `cancel_payment_session:${intentId}` },
  );
}

/**
 * Delivery of a CONFIRMED, ASSIGNED intent (the job's work; idempotent: an intent already given
 * its claims or transactions is left alone). TRANSFER: minted (or transferred when minted and held)
 * to eth_address through the token-flow pipeline, the items' reservations passed to its records
 * (ERC-1155: the records covered by the listing's reservation); COMPLETED or EXCEPTION at
 * settlement. EMAIL: one email claim per item (expiring after the policy's email_claim_duration,
 * with the listing's campaign; ERC-1155: one claim for the intent's quantity, covered by the
 * listing), COMPLETED once created and mailed.
 * A delivery the contract cannot carry is EXCEPTION with the reason.
 */
export async function deliverPurchaseIntent(db: Executor, deps: Deps, id: string): Promise<void> {
  const intent = await repo.lockIntent(db, id);
  if (intent?.status !== 'CONFIRMED' || intent.fulfillment_status !== 'ASSIGNED') return;
  if (intent.transaction_ids.length > 0 || intent.item_claim_ids.length > 0) return;
  const listing = await lockListingForSale(db, intent.listing_id);
  const collection = (await findCollection(db, listing.collection_id))!;
  const items = await lockItems(db, intent.item_ids);
  const erc1155 = collection.token_type === 'ERC1155';
  const quantity = erc1155 ? BigInt(intent.quantity) : 1n;
  const fail = async (reason: string) => {
    await repo.updateIntent(db, id, { fulfillment_status: 'EXCEPTION', fulfillment_error: reason });
    // Undeliverable: an ended ERC-1155 listing no longer keeps units for this sale.
    if (erc1155) await endCoveredUnits(db, deps, listing.id);
  };
  if (intent.fulfillment_method === 'EMAIL') {
    const expiration = new Date(Date.now() + policyOf(listing).email_claim_duration * 1000);
    const claimIds: string[] = [];
    for (const item of items) {
      claimIds.push(
        await createSaleClaim(db, deps, {
          collection,
          item,
          email: intent.email!,
          quantity,
          campaignId: listing.campaign_id,
          expiration,
          // ERC-1155: the intent's units of the item stay under the listing's reservation, which
          // keeps the item for its other buyers; the claim is covered by it (createSaleClaim).
          ...(erc1155 ? { coveredBy: listing.id } : { reservedBy: id }),
        }),
      );
    }
    await repo.updateIntent(db, id, { item_claim_ids: claimIds, fulfillment_status: 'COMPLETED' });
    await emitIntentEvent(db, id, 'purchase_intent.fulfilled');
    return;
  }
  const to = getAddress(intent.eth_address!);
  const groups = new Map<'MINT' | 'TRANSFER', ItemRow[]>();
  for (const item of items) {
    const flow =
      BigInt(item.minted_supply) > 0n && BigInt(item.held_supply) >= quantity ? 'TRANSFER' : 'MINT';
    groups.set(flow, [...(groups.get(flow) ?? []), item]);
  }
  for (const flow of groups.keys()) {
    try {
      contractForFlow(collection, flow);
    } catch (error) {
      if (error instanceof ApiError) return fail(error.detail);
      throw error;
    }
  }
  const transactionIds = new Set<string>();
  for (const [flow, flowItems] of groups) {
    const records = await startTokenFlow(db, deps, {
      flow,
      collection,
      items: flowItems,
      quantity,
      to,
      ...(erc1155 ? { coveredBy: listing.id } : { reservedBy: id }),
      owner: { kind: 'PURCHASE_INTENT', id },
    });
    for (const record of records) transactionIds.add(record.transaction_id);
  }
  await repo.updateIntent(db, id, { transaction_ids: [...transactionIds] });
}

/**
 * The intents' delivery records settled (the port tokenFlowOwners' PURCHASE_INTENT): the records
 * are closed already, and this runs once for them, in the settlement's database transaction. A
 * failure is EXCEPTION with the reason; success is COMPLETED once every transaction of the intent
 * succeeded and its records are closed (the last one's settlement sees the others closed).
 */
export const purchaseIntentFlowOwner: TokenFlowOwner = async (
  db,
  deps,
  { transaction, succeeded, records },
) => {
  const intents = await repo.lockAssignedIntents(db, [...new Set(records.map((record) => record.owner_id!))]);
  const ended = new Set<string>();
  for (const intent of intents) {
    if (!succeeded) {
      ended.add(intent.listing_id);
      await repo.updateIntent(db, intent.id, {
        fulfillment_status: 'EXCEPTION',
        fulfillment_error: `delivery transaction ${transaction.id} ${
          transaction.failure_reason ??
          (transaction.state === 'CANCELLED' ? 'was cancelled' : 'reverted on chain')
        }`,
      });
      continue;
    }
    let all = true;
    for (const other of intent.transaction_ids) {
      if (other === transaction.id) continue;
      const row = await findTransaction(db, other);
      // Settled means its records too: their settlement finishes the items (MINTED, owner) and,
      // when it runs after this one, completes the intent seeing this side closed.
      if (
        row?.state !== 'COMPLETED' ||
        row.on_chain_status !== 'SUCCESS' ||
        (row.type === 'MINT' || row.type === 'TRANSFER'
          ? await hasOpenTokenRequests(db, row.type, other)
          : false)
      )
        all = false;
    }
    if (all && intent.fulfillment_status !== 'COMPLETED') {
      ended.add(intent.listing_id);
      await repo.updateIntent(db, intent.id, { fulfillment_status: 'COMPLETED' });
      await emitIntentEvent(db, intent.id, 'purchase_intent.fulfilled');
    }
  }
  // Deliveries that ended: an ended ERC-1155 listing kept its item for them (endCoveredUnits).
  for (const listingId of [...ended].sort()) await endCoveredUnits(db, deps, listingId);
};

/**
 * Ends a PENDING intent's hold: the units return to the listing, assigned items to its
 * reservation. An intent that expires emits purchase_intent.expired (callers end a hold once: the
 * intent is locked and PENDING, or CANCELLED with its voucher's item still held).
 */
async function endHold(
  db: Executor,
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
export async function expirePurchaseIntent(db: Executor, id: string): Promise<boolean> {
  const intent = await repo.lockIntent(db, id);
  if (intent?.status !== 'PENDING' || intent.expiration > new Date()) return false;
  // A voucher stays redeemable until the chain says it expired: its watcher ends the hold.
  if (intent.payment_provider === 'MINT_VOUCHER') return false;
  await endHold(db, intent, 'EXPIRED');
  return true;
}

/** The sweep's transaction: every due PENDING intent without a provider session expires. */
export async function expireDuePurchaseIntents(db: Executor, batch = 500): Promise<number> {
  const due = (await repo.lockDueIntents(db, batch)).filter((i) => i.payment_provider !== 'MINT_VOUCHER');
  for (const intent of due) await endHold(db, intent, 'EXPIRED');
  return due.length;
}

/** A cancelled listing's PENDING intents become CANCELLED (their holds end with the listing). */
/** Units of a listing's CONFIRMED intents whose delivery has not ended (see endCoveredUnits). */
export function unitsInDelivery(db: Executor, listingId: string): Promise<bigint> {
  return repo.unitsInDelivery(db, listingId);
}

/** Locks a listing's PENDING intents (id order), before its cancel locks the listing. */
export async function lockPendingIntentsOfListing(db: Executor, listingId: string): Promise<void> {
  await repo.lockPendingIntentsOfListing(db, listingId);
}

export async function cancelPendingIntentsOfListing(db: Executor, listingId: string): Promise<void> {
  const pending = await repo.lockPendingIntentsOfListing(db, listingId);
  for (const intent of pending) {
    // A signed voucher stays redeemable: its item stays with the intent until the voucher ends.
    if (intent.payment_provider === 'MINT_VOUCHER') {
      await repo.updateIntent(db, intent.id, { status: 'CANCELLED' });
      continue;
    }
    await repo.updateIntent(db, intent.id, { status: 'CANCELLED', item_ids: [] });
    await releaseReservations(db, intent.id);
    if (paymentReferenceOf(intent) !== null) await enqueueSessionCancel(db, intent.id);
  }
}

async function lockByClientToken(
  db: Executor,
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
  db: Executor,
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
  });
  return { ...page, results: page.results.map(toPurchaseIntent) };
}

/**
 * What a purchase intent's mint voucher does (src/wiring/voucher-holders.ts). Redeemed: the item is
 * minted to the buyer (the watcher ended the intent's reservation), the held unit is sold, and the
 * intent is CONFIRMED with its fulfilment COMPLETED, or UNRESOLVED when the buyer had cancelled it.
 * Ended unredeemed: a PENDING intent is EXPIRED, and the hold ends (the item back to the listing).
 */
export const purchaseIntentVoucherHandler: VoucherHolder = {
  async redeemed(db, _deps, voucher: MintVoucherRow) {
    const intent = await repo.lockIntent(db, voucher.holder_id);
    if (!intent || (intent.status !== 'PENDING' && intent.status !== 'CANCELLED')) return;
    const listing = await lockListingForSale(db, intent.listing_id);
    await sellHeld(db, listing, intent.quantity, true);
    await repo.updateIntent(db, intent.id, {
      status: intent.status === 'PENDING' ? 'CONFIRMED' : 'UNRESOLVED',
      confirmed_at: new Date(),
      fulfillment_status: 'COMPLETED',
    });
    // Redeemed on time: confirmed, and fulfilled (the mint was the delivery); after a cancel: unresolved.
    if (intent.status === 'PENDING') {
      await emitIntentEvent(db, intent.id, 'purchase_intent.confirmed');
      await emitIntentEvent(db, intent.id, 'purchase_intent.fulfilled');
    } else await emitIntentEvent(db, intent.id, 'purchase_intent.unresolved');
  },
  async ended(db, _deps, voucher: MintVoucherRow) {
    const intent = await repo.lockIntent(db, voucher.holder_id);
    if (!intent || (intent.status !== 'PENDING' && intent.status !== 'CANCELLED')) return;
    if (intent.item_ids.length === 0) return;
    await endHold(db, intent, intent.status === 'PENDING' ? 'EXPIRED' : 'CANCELLED');
  },
};
