import type { Kysely } from 'kysely';
import type { Address } from 'viem';
import type { Deps } from '../../../context.ts';
import { isExternalPaymentProvider, paymentSessionsOf } from '../../../context.ts';
import { logFlushed, transactionFlushedAfterUnlock } from '../../../db/database.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { Database, FulfillmentMethod, ListingRow, PaymentProvider } from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import type { RateLimit } from '../../../http/rate-limit.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { randomToken, uuidv7 } from '../../../lib/ids.ts';
import { sha256 } from '../../../lib/secrets.ts';
import { type VoucherChain, withVoucherChain } from '../../tokens/mint-vouchers/voucher-issue.service.ts';
import {
  addHold,
  findListingForSale,
  findListingForSaleCounting,
  lockListingForSale,
  notSellingReason,
  onAllowList,
  unitsOfBuyer,
} from '../listings/listing-sales.service.ts';
import { POLICY_LIMITS } from '../listings/listings.schemas.ts';
import { policyOf } from '../listings/listings.service.ts';
import { completeHeld, type HeldIntent, signVoucherFor } from './purchase-completion.service.ts';
import { confirmPurchaseIntent } from './purchase-confirmation.service.ts';
import * as repo from './purchase-intents.repository.ts';
import type { CreatedPurchaseIntent, CreatePurchaseIntentBody } from './purchase-intents.schemas.ts';
import { assignItems, emitIntentEvent } from './purchase-intents.service.ts';

/**
 * Creating a purchase intent (POST /v1/public/purchase-intents): the rate limits and the listing
 * read, the checks in the order of docs/api.md#purchase-intents, and the hold, taken so that the
 * listing's row is locked as briefly as can be (createPurchaseIntent).
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
 * never through a disk write (the commit does not wait for it; the return does) and never while
 * a node or a provider is asked anything. Without a per-buyer cap, the hold comes first, in one
 * statement after the checks (createHoldFirst): a drop's buyers past its last unit are refused by
 * that statement alone, and only those who hold go on to their voucher or claim. With max_per_user,
 * the intent is checked against the listing as read (a sold-out listing refuses its buyers without
 * locking anything), a mint voucher's chain reads are made, and then the lock is taken for the
 * checks again, so a buyer's concurrent intents cannot pass the cap together, and for the work
 * that goes with the hold.
 */
export async function createPurchaseIntent(
  db: Kysely<Database>,
  deps: Deps,
  body: CreatePurchaseIntentBody,
  listing: ListingRow,
): Promise<NewPurchaseIntent> {
  if (policyOf(listing).max_per_user === null) return createHoldFirst(db, deps, body, listing);
  const buyer = await checkAsRead(db, listing, body);
  if (body.provider !== 'MINT_VOUCHER')
    return transactionFlushedAfterUnlock(db, (tx) => createUnderLock(tx, deps, body));
  return withVoucherChain(db, deps, voucherTarget(listing, buyer), (chain) =>
    transactionFlushedAfterUnlock(db, (tx) => createUnderLock(tx, deps, body, chain)),
  );
}

function voucherTarget(listing: ListingRow, buyer: Buyer) {
  return {
    organizationId: listing.organization_id,
    collectionId: listing.collection_id,
    minter: buyer.ethAddress!,
  };
}

/**
 * Every check of an intent against the listing as read, with nothing locked: a refusal here
 * costs the listing's buyers no wait. What passes is checked again under the lock.
 */
async function checkAsRead(
  db: Executor,
  listing: ListingRow,
  body: CreatePurchaseIntentBody,
): Promise<Buyer> {
  const buyer = checkPurchase(listing, body);
  const maxPerUser = policyOf(listing).max_per_user;
  if (maxPerUser !== null)
    assertUnderMaxPerUser(maxPerUser, await unitsOfBuyer(db, listing.id, buyer), body.quantity);
  if (listing.quantity_held + listing.quantity_sold + body.quantity > listing.quantity_listed)
    throw insufficientSupply(body.quantity);
  return buyer;
}

/** 422 NOT_ELIGIBLE when the buyer's units held or bought, with `quantity` more, pass the cap. */
function assertUnderMaxPerUser(maxPerUser: number, owned: number, quantity: number): void {
  if (owned + quantity > maxPerUser)
    throw new ApiError(
      'NOT_ELIGIBLE',
      `at most ${maxPerUser} units per buyer; ${owned} held or bought already`,
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
 * An intent without a per-buyer cap: checked against the listing as read, then the hold and the
 * intent in one statement, which holds only while the listing is still ACTIVE (a cancel that
 * committed first wins) and has the units. A listing read with too few units is refused before
 * anything is written. A card or crypto intent is then complete (its session is opened next); a
 * claim or a voucher is made after the hold (completeHeld).
 */
async function createHoldFirst(
  db: Kysely<Database>,
  deps: Deps,
  body: CreatePurchaseIntentBody,
  listing: ListingRow,
): Promise<NewPurchaseIntent> {
  const buyer = checkPurchase(listing, body);
  if (listing.quantity_held + listing.quantity_sold + body.quantity > listing.quantity_listed)
    throw insufficientSupply(body.quantity);
  const expiration = new Date(Date.now() + (await sessionSeconds(db, deps, listing, body.provider)) * 1000);
  const { row, clientToken } = newIntent(listing, body, buyer, expiration);
  // A card or crypto session is opened once this is on disk (openPaymentSession), and
  // purchase_intent.created follows it; the expiry sweep ends the hold if nobody pays.
  // An email claim is free: its units are sold with the intent (completeHeld completes the sale).
  const sold = body.provider === 'EMAIL_CLAIM';
  const inserted = await repo.insertIntentWithHold(db, row, sold);
  if (!inserted) {
    assertSelling(await findListingForSale(db, listing.id));
    throw insufficientSupply(body.quantity);
  }
  const { completed, ...intent } = inserted;
  const held = { answer: answerOf(row, clientToken, null), intent, listing };
  if (isExternalPaymentProvider(body.provider)) {
    await logFlushed(db);
    return held;
  }
  return completeHeld(db, deps, held, completed);
}

/**
 * Any other intent: checked, held and made under the listing's row lock, in `db`'s transaction;
 * a mint voucher from the chain state read before (`chain`).
 */
async function createUnderLock(
  db: Tx,
  deps: Deps,
  body: CreatePurchaseIntentBody,
  chain?: VoucherChain,
): Promise<NewPurchaseIntent> {
  const listing = await lockListingForSale(db, body.listing_id);
  const buyer = checkPurchase(listing, body);
  const provider = body.provider;
  const maxPerUser = policyOf(listing).max_per_user;
  if (maxPerUser !== null)
    assertUnderMaxPerUser(maxPerUser, await unitsOfBuyer(db, listing.id, buyer), body.quantity);
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
    if (!chain) throw new Error('a mint voucher intent is made from the chain state read before it');
    const [itemId] = await assignItems(db, inserted, listing);
    data = await signVoucherFor(db, deps, inserted, listing, chain, itemId!);
    await emitIntentEvent(db, inserted, 'purchase_intent.created');
  }
  // CARD_PROVIDER, CRYPTO_PROVIDER (with max_per_user): as createHoldFirst's.
  return { answer: answerOf(row, clientToken, data), intent: inserted, listing };
}

/**
 * A created intent: the answer to its buyer, and the rows it was made from (the listing as read
 * before the hold), for opening its payment session without reading them again.
 */
export type NewPurchaseIntent = HeldIntent;

/** 422 NOT_ELIGIBLE unless the listing sells now (ACTIVE, inside its window). */
function assertSelling(listing: ListingRow): void {
  const notSelling = notSellingReason(listing);
  if (notSelling !== undefined)
    throw new ApiError(
      'NOT_ELIGIBLE',
      `the listing does not sell now (${notSelling.toLowerCase().replace('_', ' ')})`,
    );
}
