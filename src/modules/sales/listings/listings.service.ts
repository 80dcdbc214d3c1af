import type { Abi } from 'viem';
import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import { capabilitiesOf } from '../../../chain/capabilities.ts';
import type { Deps } from '../../../context.ts';
import { EXTERNAL_PAYMENT_PROVIDERS, paymentSessionsOf } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { CollectionRow, ListingRow, PaymentProvider, TransactionRow } from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import {
  lockListableItems,
  releaseReservations,
  reserveItems,
  setReservedQuantity,
} from '../../catalog/items/item-flows.service.ts';
import { collectionOfSelection, parseItemSelection } from '../../catalog/items/item-selection.ts';
import { findCampaign } from '../../platform/marketing-campaigns/marketing-campaigns.service.ts';
import { findOrganization } from '../../platform/organizations/organizations.service.ts';
import { emitEvent } from '../../platform/webhooks/webhook-events.service.ts';
import * as repo from './listings.repository.ts';
import {
  type CreateListingBody,
  type EditListingBody,
  type Listing,
  type ListingPolicy,
  type ListingPolicyInput,
  type ListListingsQuery,
  POLICY_LIMITS,
} from './listings.schemas.ts';

/**
 * Listings (docs/api.md#listings): items reserved (reservation kind LISTING) for sale at a price
 * through payment providers, under a policy. The listing row keeps two counters, units held by
 * PENDING purchase intents and units sold (CONFIRMED), changed only by conditional updates, so
 * held + sold never exceeds quantity_listed (a CHECK holds it too).
 */

export type { ListingRow } from '../../../db/schema.ts';

const MAX_NAMED_ITEMS = 1000;
const FIAT = ['USD', 'EUR'];

function invalid(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path.replace(/^\//, '')}: ${message}`, {
    fields: [{ path, message }],
  });
}

export function quantityRemaining(row: ListingRow): number {
  return row.quantity_listed - row.quantity_sold;
}

export function quantityAvailable(row: ListingRow): number {
  return row.quantity_listed - row.quantity_sold - row.quantity_held;
}

export function settlementCurrency(row: ListingRow): Record<string, string> {
  return Object.fromEntries(row.payment_providers.map((p) => [p, row.currency]));
}

/** The policy as stored: `timeout_seconds` is null when the listing gave none. */
export type StoredListingPolicy = Omit<ListingPolicy, 'payment_session_duration'> & {
  payment_session_duration: { timeout_seconds: number | null; provider_override: Record<string, number> };
};

export function policyOf(row: ListingRow): StoredListingPolicy {
  return row.policy as unknown as StoredListingPolicy;
}

/** The policy as answered: a session length not given shows the default. */
function answeredPolicy(row: ListingRow): ListingPolicy {
  const policy = policyOf(row);
  const session = policy.payment_session_duration;
  return {
    ...policy,
    payment_session_duration: {
      ...session,
      timeout_seconds: session.timeout_seconds ?? POLICY_LIMITS.defaultSessionSeconds,
    },
  };
}

export function toListing(row: ListingRow): Listing {
  return {
    id: row.id,
    status: row.status,
    collection_id: row.collection_id,
    item_id: row.item_id,
    quantity_listed: row.quantity_listed,
    quantity_remaining: quantityRemaining(row),
    sale_type: row.sale_type,
    price: row.price,
    currency: row.currency,
    settlement_currency: settlementCurrency(row),
    max_quantity_per_tx: row.max_quantity_per_tx,
    payment_providers: row.payment_providers,
    start_time: iso(row.start_time),
    end_time: iso(row.end_time),
    policy: answeredPolicy(row),
    campaign_id: row.campaign_id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/**
 * listing.created, .cancelled or .completed, in the transaction of the change, with the listing as
 * the admin API shows it after the change. Each caller emits only on the transition itself (under
 * the listing's row lock), so a path that runs again emits nothing.
 */
export async function emitListingEvent(
  db: Executor,
  id: string,
  type: 'listing.created' | 'listing.cancelled' | 'listing.completed',
): Promise<Listing> {
  const row = (await repo.findListing(db, id))!;
  const listing = toListing(row);
  await emitEvent(db, { organizationId: row.organization_id, type, resourceId: id, data: listing });
  return listing;
}

/** The policy as stored and shown: every default filled, allow lists normalized. */
function normalizedPolicy(
  input: ListingPolicyInput,
  providers: readonly PaymentProvider[],
): StoredListingPolicy {
  if (input.snapshot_id != null)
    throw invalid(
      '/policy/snapshot_id',
      'snapshots are not supported: give email_addresses or eth_addresses',
    );
  const emails = input.email_addresses ?? null;
  const addresses = input.eth_addresses ?? null;
  if (input.type === 'ALLOW_LIST' && !emails?.length && !addresses?.length)
    throw invalid('/policy', 'an ALLOW_LIST policy needs email_addresses or eth_addresses');
  if (input.type === 'FCFS' && (emails?.length || addresses?.length))
    throw invalid('/policy', 'email_addresses and eth_addresses belong to an ALLOW_LIST policy');
  const txPayer = input.tx_payer ?? 'SELLER';
  if (txPayer === 'BUYER' && !providers.includes('MINT_VOUCHER'))
    throw invalid('/policy/tx_payer', 'BUYER pays the transaction only with MINT_VOUCHER');
  const session = input.payment_session_duration;
  const overrides: Record<string, number> = {};
  for (const [provider, seconds] of Object.entries(session?.provider_override ?? {}))
    if (typeof seconds === 'number') overrides[provider] = seconds;
  return {
    type: input.type,
    max_per_user: input.max_per_user ?? null,
    payment_session_duration: {
      // Not given: the provider's default when it has one (the card platform account's), else 900.
      timeout_seconds: session?.timeout_seconds ?? null,
      provider_override: overrides,
    },
    email_claim_duration: input.email_claim_duration ?? POLICY_LIMITS.defaultClaimSeconds,
    item_assignment_strategy: input.item_assignment_strategy ?? 'AUTOMATIC',
    tx_payer: txPayer,
    email_addresses: emails === null ? null : [...new Set(emails.map((e) => e.toLowerCase()))],
    eth_addresses:
      addresses === null
        ? null
        : [...new Set(addresses.map((a, i) => checkedAddress(a, `/policy/eth_addresses/${i}`)))],
  };
}

/** Currency rules: each provider must take the listing's currency (400 otherwise). */
async function checkCurrency(
  db: Executor,
  collection: CollectionRow,
  providers: readonly PaymentProvider[],
  currency: string,
  price: bigint,
): Promise<void> {
  const tokens =
    collection.network_id === null ? [] : await repo.paymentTokenSymbols(db, collection.network_id);
  const crypto = currency === 'ETH' || tokens.includes(currency);
  for (const provider of providers) {
    const fits =
      provider === 'CARD_PROVIDER'
        ? FIAT.includes(currency)
        : provider === 'CRYPTO_PROVIDER'
          ? currency === 'USD'
          : provider === 'MINT_VOUCHER'
            ? crypto
            : FIAT.includes(currency) || crypto;
    if (!fits)
      throw invalid(
        '/currency',
        `${provider} does not take ${currency} (CARD_PROVIDER: USD or EUR; CRYPTO_PROVIDER: USD; MINT_VOUCHER: ETH or a payment token of the network)`,
      );
  }
  if (providers.includes('EMAIL_CLAIM') && price !== 0n)
    throw invalid('/price', 'EMAIL_CLAIM listings are free: price must be "0"');
}

function capabilitiesOfCollection(collection: CollectionRow): readonly string[] {
  if (collection.deployment_status === 'SUCCESS') return collection.capabilities;
  return collection.abi ? capabilitiesOf(collection.abi as Abi) : [];
}

/** Preconditions of the providers (docs/api.md#listings), checked at create. */
async function checkProviders(
  db: Executor,
  deps: Deps,
  collection: CollectionRow,
  providers: readonly PaymentProvider[],
): Promise<void> {
  for (const provider of EXTERNAL_PAYMENT_PROVIDERS)
    if (providers.includes(provider))
      await paymentSessionsOf(deps, provider).assertReady(db, deps, collection.organization_id);
  if (providers.includes('MINT_VOUCHER')) {
    const organization = await findOrganization(db, collection.organization_id);
    if (!organization?.payout_address)
      throw new ApiError('PAYOUT_ADDRESS_REQUIRED', 'selling with mint vouchers needs a payout_address');
    if (!capabilitiesOfCollection(collection).includes('MINT_VOUCHER'))
      throw new ApiError(
        'MISSING_MINT_CAPABILITY',
        "the collection's contract cannot redeem mint vouchers (MINT_VOUCHER)",
      );
  }
}

function checkWindow(start: Date | null, end: Date | null): void {
  if (start !== null && end !== null && end <= start) throw invalid('/end_time', 'must be after start_time');
}

async function checkCampaign(db: Executor, campaignId: string | null | undefined, organizationId: string) {
  if (campaignId == null) return;
  const campaign = await findCampaign(db, campaignId);
  if (!campaign || campaign.organization_id !== organizationId)
    throw new ApiError('NOT_FOUND', 'marketing campaign not found');
}

/**
 * Create (docs/api.md#listings), all or nothing in the caller's transaction: the selector, the
 * collection (deployed: ACTIVE; deployment PENDING: PENDING_TX; else INVALID_STATE), the campaign,
 * currency and provider rules, the items locked and checked, quantity_listed, and the items
 * reserved for the listing.
 */
export async function createListing(
  db: Tx,
  deps: Deps,
  principal: Principal,
  body: CreateListingBody,
): Promise<Listing> {
  const selection = parseItemSelection(body, { maxItems: MAX_NAMED_ITEMS });
  const collection = await collectionOfSelection(db, principal, selection);
  await checkCampaign(db, body.campaign_id, collection.organization_id);
  const providers = body.payment_providers;
  const policy = normalizedPolicy(body.policy, providers);
  const price = BigInt(body.price);
  await checkCurrency(db, collection, providers, body.currency, price);
  const start = body.start_time == null ? null : new Date(body.start_time);
  const end = body.end_time == null ? null : new Date(body.end_time);
  checkWindow(start, end);
  let status: ListingRow['status'];
  if (collection.deployment_status === 'SUCCESS') status = 'ACTIVE';
  else if (collection.deployment_status === 'PENDING' && collection.token_type !== null)
    status = 'PENDING_TX';
  else
    throw new ApiError(
      'INVALID_STATE',
      `collection ${collection.id} has no deployment that succeeded or is in flight`,
    );
  await checkProviders(db, deps, collection, providers);

  const itemLevel = body.item_id != null;
  if (!itemLevel && collection.token_type !== 'ERC721')
    throw new ApiError(
      'INVALID_SELECTION',
      'collection-level listings (item_ids, collection_id, token_ids, token_ranges) sell ERC721 items only: list an ERC1155 item with item_id',
    );
  const mintOnly = providers.includes('MINT_VOUCHER');
  const listable = await lockListableItems(db, collection, selection, { mintOnly });
  if (listable.length === 0) throw new ApiError('INVALID_STATE', 'no item of the selection can be listed');
  const units = (l: (typeof listable)[number]) => (collection.token_type === 'ERC721' ? 1n : l.units);
  const total = listable.reduce((sum, l) => sum + units(l), 0n);
  const asked = body.quantity_listed == null ? total : BigInt(body.quantity_listed);
  if (asked > total)
    throw new ApiError('INSUFFICIENT_SUPPLY', `${total} units can be listed, ${asked} asked`);
  if (asked > 2_147_483_647n)
    throw new ApiError('INSUFFICIENT_SUPPLY', `at most 2147483647 units per listing, ${asked} eligible`);
  const id = uuidv7();
  // ERC721: the first quantity_listed items (lowest token id first); ERC1155: asked units of the item.
  const taken = collection.token_type === 'ERC721' ? listable.slice(0, Number(asked)) : listable;
  await repo.insertListing(db, {
    id,
    organization_id: collection.organization_id,
    collection_id: collection.id,
    item_id: itemLevel ? body.item_id! : null,
    status,
    price,
    currency: body.currency,
    payment_providers: [...providers],
    max_quantity_per_tx: body.max_quantity_per_tx,
    quantity_listed: Number(asked),
    start_time: start,
    end_time: end,
    policy: policy as unknown as Record<string, unknown>,
    campaign_id: body.campaign_id ?? null,
  });
  await reserveItems(
    db,
    taken.map((l) => l.item),
    'LISTING',
    id,
    collection.token_type === 'ERC721' ? 1n : asked,
  );
  return emitListingEvent(db, id, 'listing.created');
}

export async function getListingRow(db: Executor, principal: Principal, id: string): Promise<ListingRow> {
  const row = await repo.findListing(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'listing not found');
  assertOrganizationAccess(principal, row.organization_id, 'listing');
  return row;
}

export async function getListing(db: Executor, principal: Principal, id: string): Promise<Listing> {
  return toListing(await getListingRow(db, principal, id));
}

export async function listListings(
  db: Executor,
  principal: Principal,
  query: ListListingsQuery,
): Promise<PageResult<Listing>> {
  const page = await repo.listListings(db, query as PageParams, {
    organizationId: isPlatformAdmin(principal) ? undefined : principal.organizationId,
    itemId: query.item_id,
    collectionId: query.collection_id,
    statuses: query.status,
  });
  return { ...page, results: page.results.map(toListing) };
}

async function lockOwnListing(db: Tx, principal: Principal, id: string): Promise<ListingRow> {
  const row = await repo.lockListing(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'listing not found');
  assertOrganizationAccess(principal, row.organization_id, 'listing');
  return row;
}

/** Edit: start_time, end_time, policy (its type kept), campaign_id; only while PENDING_TX or ACTIVE. */
export async function editListing(
  db: Tx,
  principal: Principal,
  id: string,
  body: EditListingBody,
): Promise<Listing> {
  const row = await lockOwnListing(db, principal, id);
  if (row.status !== 'PENDING_TX' && row.status !== 'ACTIVE')
    throw new ApiError('INVALID_STATE', `a ${row.status} listing cannot be edited`);
  const update: repo.ListingUpdate = {};
  if (body.policy !== undefined) {
    if (body.policy.type !== policyOf(row).type)
      throw new ApiError('INVALID_STATE', `the policy type stays ${policyOf(row).type}`);
    update.policy = normalizedPolicy(body.policy, row.payment_providers) as unknown as Record<
      string,
      unknown
    >;
  }
  if (body.start_time !== undefined)
    update.start_time = body.start_time === null ? null : new Date(body.start_time);
  if (body.end_time !== undefined) update.end_time = body.end_time === null ? null : new Date(body.end_time);
  checkWindow(
    update.start_time !== undefined ? update.start_time : row.start_time,
    update.end_time !== undefined ? update.end_time : row.end_time,
  );
  if (body.campaign_id !== undefined) {
    await checkCampaign(db, body.campaign_id, row.organization_id);
    update.campaign_id = body.campaign_id;
  }
  await repo.updateListing(db, id, update);
  return toListing((await repo.findListing(db, id))!);
}

/**
 * Cancel: only while PENDING_TX or ACTIVE (else INVALID_STATE); PENDING intents become CANCELLED
 * (their holds end) and the items the listing still holds are released, except an ERC-1155 item
 * while units sold may still be delivered (endCoveredUnits).
 */
export async function cancelListing(db: Tx, deps: Deps, principal: Principal, id: string): Promise<Listing> {
  const seen = await repo.findListing(db, id);
  if (!seen) throw new ApiError('NOT_FOUND', 'listing not found');
  assertOrganizationAccess(principal, seen.organization_id, 'listing');
  // Its PENDING intents are locked before the listing, the order every intent's path takes
  // (intent, then its listing): a confirmation or an expiry in flight finishes first, no deadlock.
  await deps.ports.listingDeliveries.lockPendingIntents(db, id);
  const row = await lockOwnListing(db, principal, id);
  if (row.status !== 'PENDING_TX' && row.status !== 'ACTIVE')
    throw new ApiError('INVALID_STATE', `a ${row.status} listing cannot be cancelled`);
  await deps.ports.listingDeliveries.cancelPendingIntents(db, id);
  // The cancelled intents released their holds; a signed voucher's unit stays held until the
  // voucher ends, since the chain may still take it.
  await repo.updateListing(db, id, { status: 'CANCELLED' });
  if (row.item_id === null) await releaseReservations(db, id);
  else await endCoveredUnits(db, deps, id);
  return emitListingEvent(db, id, 'listing.cancelled');
}

/**
 * What an ended (CANCELLED or COMPLETE) listing's reservation still holds. An ERC-1155 listing
 * sells units of one item to many buyers, so its deliveries are covered by its reservation (one
 * per item) instead of taking the item: a TRANSFER delivery's mint or transfer, and an EMAIL
 * delivery's claim until it is delivered. Those units were sold: the listing's end must not give
 * the item to another flow while they may still be delivered, or its supply would be promised
 * twice (and a transfer's units spent twice). So the reservation stays, its quantity the units
 * still owed (intents in delivery, claims that may still deliver), until the last of those
 * deliveries completes, fails, expires or is revoked (each calls this again); then it is released
 * and the item is free: its unsold or unlisted units, and any a claim gave up, are the item's
 * again. A listing still selling keeps the item. Runs under the listing's row lock; `except`: a
 * claim its caller is finishing in this transaction.
 */
export async function endCoveredUnits(db: Tx, deps: Deps, listingId: string, except?: string): Promise<void> {
  // Collection-level listings sell ERC-721 items, each moved to its buyer: nothing is covered.
  const seen = await repo.findListing(db, listingId);
  if (seen?.item_id == null) return;
  const listing = await repo.lockListing(db, listingId);
  if (listing?.status !== 'CANCELLED' && listing?.status !== 'COMPLETE') return;
  const collection = await findCollection(db, listing.collection_id);
  const units =
    collection?.token_type === 'ERC1155'
      ? await deps.ports.listingDeliveries.unitsOwed(db, listingId, except)
      : 0n;
  if (units === 0n) await releaseReservations(db, listingId);
  else await setReservedQuantity(db, listingId, units);
}

/**
 * Settlement of a DEPLOY transaction (after settleDeployment, in its transaction): the
 * collection's PENDING_TX listings become ACTIVE when the deployment succeeded, else CANCELLED
 * with their items released.
 */
export async function settleListingsOfDeployment(
  db: Tx,
  _deps: Deps,
  transaction: TransactionRow,
): Promise<void> {
  const collection = await collectionOfDeployment(db, transaction);
  if (!collection || collection.deployment_status === 'PENDING') return;
  const listings = await repo.lockPendingListingsOfCollection(db, collection.id);
  for (const listing of listings) {
    if (collection.deployment_status === 'SUCCESS') {
      await repo.updateListing(db, listing.id, { status: 'ACTIVE' });
    } else {
      await repo.updateListing(db, listing.id, { status: 'CANCELLED' });
      await releaseReservations(db, listing.id);
      await emitListingEvent(db, listing.id, 'listing.cancelled');
    }
  }
}

async function collectionOfDeployment(db: Executor, transaction: TransactionRow) {
  const collectionId = await repo.collectionOfDeployment(db, transaction.id);
  return collectionId === undefined ? undefined : findCollection(db, collectionId);
}
