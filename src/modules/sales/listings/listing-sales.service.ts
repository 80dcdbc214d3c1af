import { type Address, getAddress } from 'viem';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { ListingRow } from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import { hitRateLimitsThenRead, type RateLimitHit } from '../../../http/rate-limit.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import * as repo from './listings.repository.ts';
import type { Eligibility, EligibilityQuery, PublicListing } from './listings.schemas.ts';
import {
  emitListingEvent,
  policyOf,
  quantityAvailable,
  quantityRemaining,
  settlementCurrency,
} from './listings.service.ts';

/**
 * What purchase intents do to a listing (its hold and sold counters, read and locked for a sale),
 * and the public reads of a listing (the checkout page's).
 */

/** The listing a purchase names (404 when there is none), unlocked. */
export async function findListingForSale(db: Executor, id: string): Promise<ListingRow> {
  const row = await repo.findListing(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'listing not found');
  return row;
}

/**
 * findListingForSale in the statement that counts `hits` (hitRateLimitsThenRead): 429
 * RATE_LIMITED first, then 404.
 */
export async function findListingForSaleCounting(
  db: Executor,
  id: string,
  hits: readonly RateLimitHit[],
): Promise<ListingRow> {
  const row = await hitRateLimitsThenRead(db, hits, repo.listingQuery(db, id));
  if (!row) throw new ApiError('NOT_FOUND', 'listing not found');
  return row;
}

/** The listing a purchase names, locked (404 when there is none). */
export async function lockListingForSale(db: Tx, id: string): Promise<ListingRow> {
  const row = await repo.lockListing(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'listing not found');
  return row;
}

/** Why an ACTIVE listing does not sell now, or undefined when it does. */
export function notSellingReason(
  row: ListingRow,
  now = new Date(),
): 'NOT_ACTIVE' | 'NOT_STARTED' | 'ENDED' | undefined {
  if (row.status !== 'ACTIVE') return 'NOT_ACTIVE';
  if (row.start_time !== null && now < row.start_time) return 'NOT_STARTED';
  if (row.end_time !== null && now >= row.end_time) return 'ENDED';
  return undefined;
}

export function onAllowList(
  row: ListingRow,
  buyer: { email: string | null; ethAddress: string | null },
): boolean {
  const policy = policyOf(row);
  if (policy.type !== 'ALLOW_LIST') return true;
  return (
    (buyer.email !== null && (policy.email_addresses ?? []).includes(buyer.email.toLowerCase())) ||
    (buyer.ethAddress !== null && (policy.eth_addresses ?? []).includes(buyer.ethAddress))
  );
}

/** The address of the ERC-20 a listing's currency names on its collection's network. */
export async function paymentTokenAddress(db: Executor, listing: ListingRow): Promise<Address> {
  const collection = await findCollection(db, listing.collection_id);
  const address =
    collection?.network_id == null
      ? undefined
      : await repo.paymentTokenBySymbol(db, collection.network_id, listing.currency);
  if (!address)
    throw new ApiError(
      'INVALID_STATE',
      `${listing.currency} is no payment token of the collection's network`,
    );
  return getAddress(address);
}

export const unitsOfBuyer = repo.unitsOfBuyer;
export const addHold = repo.addHold;
export const releaseHold = repo.releaseHold;
/**
 * Units of a listing locked by the caller (`listing`, as it was locked) are sold; an ACTIVE
 * listing with nothing left is COMPLETE, and listing.completed is emitted on that transition only.
 */
export async function sellHeld(
  db: Executor,
  listing: ListingRow,
  quantity: number,
  fromHold: boolean,
): Promise<ListingRow> {
  const sold = await repo.sellHeld(db, listing.id, quantity, fromHold);
  if (listing.status !== 'COMPLETE' && sold.status === 'COMPLETE')
    await emitListingEvent(db, listing.id, 'listing.completed');
  return sold;
}
export const findListing = repo.findListing;

// ---- Public ----

export async function getPublicListing(db: Executor, id: string): Promise<PublicListing> {
  const row = await repo.findListingWithContract(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'listing not found');
  const policy = policyOf(row);
  return {
    id: row.id,
    status: row.status,
    collection_id: row.collection_id,
    item_id: row.item_id,
    network_id: row.network_id,
    contract_address: row.contract_address ? getAddress(row.contract_address) : null,
    token_type: row.token_type,
    quantity_listed: row.quantity_listed,
    quantity_remaining: quantityRemaining(row),
    quantity_available: quantityAvailable(row),
    price: row.price,
    currency: row.currency,
    settlement_currency: settlementCurrency(row),
    max_quantity_per_tx: row.max_quantity_per_tx,
    payment_providers: row.payment_providers,
    start_time: iso(row.start_time),
    end_time: iso(row.end_time),
    policy: { type: policy.type, max_per_user: policy.max_per_user, tx_payer: policy.tx_payer },
  };
}

/** Whether a buyer could buy now, and how many units it has and may still take. */
export async function getEligibility(
  db: Executor,
  id: string,
  query: EligibilityQuery,
): Promise<Eligibility> {
  const row = await repo.findListing(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'listing not found');
  const buyer = {
    email: query.email ?? null,
    ethAddress: query.eth_address === undefined ? null : checkedAddress(query.eth_address, '/eth_address'),
  };
  const policy = policyOf(row);
  const claimed = await repo.unitsOfBuyer(db, id, buyer);
  const allowed = policy.max_per_user === null ? null : Math.max(0, policy.max_per_user - claimed);
  const reason =
    notSellingReason(row) ??
    (buyer.email === null && buyer.ethAddress === null
      ? 'BUYER_REQUIRED'
      : !onAllowList(row, buyer)
        ? 'NOT_ON_ALLOW_LIST'
        : allowed === 0
          ? 'MAX_PER_USER'
          : quantityAvailable(row) <= 0
            ? 'SOLD_OUT'
            : undefined);
  return {
    is_eligible: reason === undefined,
    quantity_claimed: claimed,
    quantity_allowed: allowed,
    reason: reason ?? null,
  };
}
