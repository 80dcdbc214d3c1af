import { sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import { hotQuery } from '../../../db/prepared.ts';
import type {
  CollectionRow,
  ListingRow,
  ListingStatus,
  PaymentProvider,
  TokenType,
} from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export interface NewListing {
  id: string;
  organization_id: string;
  collection_id: string;
  item_id: string | null;
  status: ListingStatus;
  price: bigint;
  currency: string;
  payment_providers: PaymentProvider[];
  max_quantity_per_tx: number;
  quantity_listed: number;
  start_time: Date | null;
  end_time: Date | null;
  policy: Record<string, unknown>;
  campaign_id: string | null;
}

export async function insertListing(db: Executor, listing: NewListing): Promise<void> {
  await db
    .insertInto('listings')
    .values({
      ...listing,
      price: listing.price.toString(),
      policy: JSON.stringify(listing.policy),
    })
    .execute();
}

/** A listing by id (one row, or none). */
export function listingQuery(db: Executor, id: string) {
  return db.selectFrom('listings').selectAll().where('id', '=', id);
}

const listingById = hotQuery(listingQuery);

export async function findListing(db: Executor, id: string): Promise<ListingRow | undefined> {
  return (await listingById(db, id))[0];
}

const listingWithContract = hotQuery((db, id: string) =>
  db
    .selectFrom('listings')
    .leftJoin('collections', 'collections.id', 'listings.collection_id')
    .selectAll('listings')
    .select(['collections.network_id', 'collections.contract_address', 'collections.token_type'])
    .where('listings.id', '=', id),
);

/** The listing with what its public view shows of its collection (not the collection's ABI). */
export async function findListingWithContract(
  db: Executor,
  id: string,
): Promise<
  | (ListingRow & Pick<CollectionRow, 'network_id' | 'contract_address'> & { token_type: TokenType | null })
  | undefined
> {
  return (await listingWithContract(db, id))[0];
}

/** The listing, locked against concurrent holds, sales and edits. */
export function lockListing(db: Tx, id: string): Promise<ListingRow | undefined> {
  return db.selectFrom('listings').selectAll().where('id', '=', id).forNoKeyUpdate().executeTakeFirst();
}

export type ListingUpdate = Partial<
  Pick<ListingRow, 'status' | 'start_time' | 'end_time' | 'campaign_id' | 'quantity_held' | 'quantity_sold'>
> & { policy?: Record<string, unknown> };

export async function updateListing(db: Executor, id: string, update: ListingUpdate): Promise<void> {
  const { policy, ...rest } = update;
  await db
    .updateTable('listings')
    .set({ ...rest, ...(policy !== undefined && { policy: JSON.stringify(policy) }), updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/**
 * Takes `quantity` units for a hold in one conditional update: it succeeds only while held + sold
 * + quantity stays within quantity_listed, so under any concurrency no unit is held twice.
 */
export async function addHold(
  db: Executor,
  id: string,
  quantity: number,
  options: { onlyActive?: boolean } = {},
): Promise<boolean> {
  const result = await db
    .updateTable('listings')
    .set((eb) => ({ quantity_held: eb('quantity_held', '+', quantity), updated_at: new Date() }))
    .where('id', '=', id)
    .where(sql<boolean>`quantity_held + quantity_sold + ${quantity} <= quantity_listed`)
    .$if(options.onlyActive === true, (qb) => qb.where('status', '=', 'ACTIVE'))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * A hold ends unsold (expired, cancelled). The counter is never clamped: a release of units not
 * held is a hold released twice, and it fails here rather than hide it.
 */
export async function releaseHold(db: Executor, id: string, quantity: number): Promise<void> {
  const result = await db
    .updateTable('listings')
    .set((eb) => ({ quantity_held: eb('quantity_held', '-', quantity), updated_at: new Date() }))
    .where('id', '=', id)
    .where('quantity_held', '>=', quantity)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw heldTwice(id, quantity);
}

function heldTwice(id: string, quantity: number): Error {
  return new Error(`listing ${id}: ${quantity} held units released, but fewer are held (a hold ended twice)`);
}

/**
 * Units are sold, from a hold (`fromHold`: the hold's units leave quantity_held, which must hold
 * them) or not; the listing is COMPLETE when nothing remains. Returns the listing after.
 */
export async function sellHeld(
  db: Executor,
  id: string,
  quantity: number,
  fromHold: boolean,
): Promise<ListingRow> {
  const sold = await db
    .updateTable('listings')
    .set((eb) => ({
      quantity_held: fromHold ? eb('quantity_held', '-', quantity) : eb.ref('quantity_held'),
      quantity_sold: eb('quantity_sold', '+', quantity),
      status: sql`CASE WHEN quantity_sold + ${quantity} >= quantity_listed AND status = 'ACTIVE' THEN 'COMPLETE' ELSE status END`,
      updated_at: new Date(),
    }))
    .where('id', '=', id)
    .$if(fromHold, (qb) => qb.where('quantity_held', '>=', quantity))
    .returningAll()
    .executeTakeFirst();
  if (!sold) throw heldTwice(id, quantity);
  return sold;
}

/** PENDING_TX listings of a collection, locked (its deployment settled). */
export function lockPendingListingsOfCollection(db: Tx, collectionId: string): Promise<ListingRow[]> {
  return db
    .selectFrom('listings')
    .selectAll()
    .where('collection_id', '=', collectionId)
    .where('status', '=', 'PENDING_TX')
    .orderBy('id')
    .forNoKeyUpdate()
    .execute();
}

export interface ListingFilters {
  organizationId: string | undefined;
  itemId: string | undefined;
  collectionId: string | undefined;
  statuses: ListingStatus[] | undefined;
}

export function listListings(
  db: Executor,
  page: PageParams,
  filters: ListingFilters,
): Promise<PageResult<ListingRow>> {
  let query = db.selectFrom('listings').selectAll();
  if (filters.organizationId !== undefined)
    query = query.where('organization_id', '=', filters.organizationId);
  if (filters.collectionId !== undefined) query = query.where('collection_id', '=', filters.collectionId);
  if (filters.itemId !== undefined) {
    const itemId = filters.itemId;
    // An item-level listing of the item, or a collection-level one that reserved it.
    query = query.where(({ or, eb, exists, selectFrom }) =>
      or([
        eb('item_id', '=', itemId),
        exists(
          selectFrom('item_reservations')
            .select('item_reservations.id')
            .whereRef('item_reservations.holder_id', '=', 'listings.id')
            .where('item_reservations.item_id', '=', itemId),
        ),
      ]),
    );
  }
  if (filters.statuses?.length) query = query.where('status', 'in', filters.statuses);
  return paginate(query, {
    page,
    filters: { ...filters },
    sortColumn: 'listings.created_at',
    sortKind: 'timestamp',
    sortValue: (row) => row.created_at,
    idColumn: 'listings.id',
    idKind: 'uuid',
    idValue: (row) => row.id,
  });
}

/** The PENDING and CONFIRMED units of a buyer on a listing (max_per_user). */
export async function unitsOfBuyer(
  db: Executor,
  listingId: string,
  buyer: { email: string | null; ethAddress: string | null },
): Promise<number> {
  if (buyer.email === null && buyer.ethAddress === null) return 0;
  const row = await db
    .selectFrom('purchase_intents')
    .select(sql<number>`coalesce(sum(quantity), 0)::int`.as('units'))
    .where('listing_id', '=', listingId)
    .where('status', 'in', ['PENDING', 'CONFIRMED'])
    .where(({ or, eb }) => {
      const either = [];
      if (buyer.email !== null) either.push(eb(sql`lower(email)`, '=', buyer.email.toLowerCase()));
      if (buyer.ethAddress !== null) either.push(eb('eth_address', '=', buyer.ethAddress));
      return or(either);
    })
    .executeTakeFirstOrThrow();
  return row.units;
}

export async function paymentTokenSymbols(db: Executor, networkId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('payment_tokens')
    .select('symbol')
    .where('network_id', '=', networkId)
    .execute();
  return rows.map((r) => r.symbol);
}

/** The collection a DEPLOY transaction deploys. */
export async function collectionOfDeployment(
  db: Executor,
  transactionId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('collections')
    .select('id')
    .where('deployment_transaction_id', '=', transactionId)
    .executeTakeFirst();
  return row?.id;
}

export async function paymentTokenBySymbol(
  db: Executor,
  networkId: number,
  symbol: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('payment_tokens')
    .select('address')
    .where('network_id', '=', networkId)
    .where('symbol', '=', symbol)
    .executeTakeFirst();
  return row?.address;
}
