import { type RawBuilder, sql } from 'kysely';
import { ASYNC_COMMIT } from '../../../db/database.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import { executePrepared } from '../../../db/prepared.ts';
import type {
  FulfillmentMethod,
  FulfillmentStatus,
  PaymentMismatchRecord,
  PaymentProvider,
  PurchaseIntentRow,
  PurchaseIntentStatus,
} from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export interface NewPurchaseIntent {
  id: string;
  organization_id: string;
  listing_id: string;
  quantity: number;
  status: PurchaseIntentStatus;
  fulfillment_method: FulfillmentMethod;
  payment_provider: PaymentProvider;
  email: string | null;
  eth_address: string | null;
  client_token_hash: Buffer;
  provider_price: Record<string, unknown>;
  expiration: Date;
}

export function insertIntent(db: Executor, intent: NewPurchaseIntent): Promise<PurchaseIntentRow> {
  return db
    .insertInto('purchase_intents')
    .values({ ...intent, provider_price: JSON.stringify(intent.provider_price) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The intent and its hold in one statement: the listing's counter grows only while it is ACTIVE
 * and has the units, and otherwise nothing is written (undefined). The listing's row is locked by
 * this statement alone. Outside a transaction its commit does not wait for the disk
 * (ASYNC_COMMIT): the caller waits with logFlushed before anything is answered on its strength.
 *
 * With `sold` (an email claim's free sale), the units are sold at once instead of held: the
 * intent is written CONFIRMED, its fulfilment PENDING until its claim sale is completed, and the
 * listing becomes COMPLETE with its last unit (`completed`).
 */
export async function insertIntentWithHold(
  db: Executor,
  intent: NewPurchaseIntent,
  sold = false,
): Promise<(PurchaseIntentRow & { completed: boolean }) | undefined> {
  const counters = sold
    ? sql`quantity_sold = quantity_sold + ${intent.quantity},
        status = CASE WHEN quantity_sold + ${intent.quantity} >= quantity_listed THEN 'COMPLETE' ELSE status END`
    : sql`quantity_held = quantity_held + ${intent.quantity}`;
  const { rows } = await executePrepared(
    db,
    sql<PurchaseIntentRow & { completed: boolean }>`
    WITH hold AS (
      UPDATE listings SET ${counters}, updated_at = now()
      WHERE id = ${intent.listing_id} AND status = 'ACTIVE'
        AND quantity_held + quantity_sold + ${intent.quantity} <= quantity_listed
      RETURNING id, status
    ), intent AS (
      INSERT INTO purchase_intents (id, organization_id, listing_id, quantity, status,
        fulfillment_method, payment_provider, email, eth_address, client_token_hash,
        provider_price, expiration, confirmed_at)
      SELECT ${intent.id}::uuid, ${intent.organization_id}::uuid, hold.id, ${intent.quantity}::int,
        ${sold ? 'CONFIRMED' : intent.status}::text, ${intent.fulfillment_method}::text,
        ${intent.payment_provider}::text, ${intent.email}::text, ${intent.eth_address}::text,
        ${intent.client_token_hash}::bytea, ${JSON.stringify(intent.provider_price)}::jsonb,
        ${intent.expiration}::timestamptz, ${sold ? sql`now()` : sql`NULL`}
      FROM hold
      RETURNING *
    )
    SELECT intent.*, hold.status = 'COMPLETE' AS completed
    FROM intent, hold, (SELECT ${ASYNC_COMMIT}) AS async_commit`,
  );
  return rows[0];
}

/**
 * The provider's session stored on a PENDING intent by one statement, when nothing has to be
 * written with it: `unless` (an event subscriber, say) is false. False when nothing was written
 * (the intent ended, or `unless` holds): the caller then stores it under the intent's lock.
 */
export async function attachSessionAlone(
  db: Executor,
  id: string,
  update: Pick<IntentUpdate, 'card_provider_payment_intent_id' | 'crypto_provider_charge_id' | 'data'>,
  unless: (organizationId: RawBuilder<string>) => RawBuilder<boolean>,
): Promise<boolean> {
  // Prepared: one statement text per provider (its reference column).
  const result = await executePrepared(
    db,
    db
      .updateTable('purchase_intents')
      .set(columnsOf(update))
      .where('id', '=', id)
      .where('status', '=', 'PENDING')
      .where(sql<boolean>`NOT ${unless(sql.ref('purchase_intents.organization_id'))}`),
  );
  return (result.numAffectedRows ?? 0n) > 0n;
}

export function findIntent(db: Executor, id: string): Promise<PurchaseIntentRow | undefined> {
  return db.selectFrom('purchase_intents').selectAll().where('id', '=', id).executeTakeFirst();
}

export function lockIntent(db: Tx, id: string): Promise<PurchaseIntentRow | undefined> {
  return db.selectFrom('purchase_intents').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export type IntentUpdate = Partial<
  Pick<
    PurchaseIntentRow,
    | 'status'
    | 'fulfillment_status'
    | 'item_ids'
    | 'item_claim_ids'
    | 'transaction_ids'
    | 'fulfillment_error'
    | 'confirmed_at'
    | 'card_provider_payment_intent_id'
    | 'crypto_provider_charge_id'
  >
> & { data?: Record<string, unknown> | null; payment_mismatch?: PaymentMismatchRecord };

/** The columns an update writes: `data` and `payment_mismatch` as JSON text, and updated_at. */
function columnsOf(update: IntentUpdate) {
  const { data, payment_mismatch, ...rest } = update;
  return {
    ...rest,
    ...(data !== undefined && { data: data === null ? null : JSON.stringify(data) }),
    ...(payment_mismatch !== undefined && { payment_mismatch: JSON.stringify(payment_mismatch) }),
    updated_at: new Date(),
  };
}

export async function updateIntent(db: Executor, id: string, update: IntentUpdate): Promise<void> {
  await db.updateTable('purchase_intents').set(columnsOf(update)).where('id', '=', id).execute();
}

/** An intent whose provider session never opened (nothing else refers to it yet). */
export async function deleteIntent(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('purchase_intents').where('id', '=', id).execute();
}

/** A session at a payment provider is open for the intent (its expiry asks the provider first). */
const hasProviderSession = sql<boolean>`(card_provider_payment_intent_id IS NOT NULL OR crypto_provider_charge_id IS NOT NULL)`;

/**
 * How long a mint voucher's intent may stay unfinished (held, its voucher not signed yet), or an
 * email claim's sale uncompleted, before the sweep takes it for a creation that crashed.
 */
export const UNFINISHED_AFTER_SECONDS = 120;

/** A mint voucher's PENDING intent whose voucher is not signed yet. */
const unsigned = sql<boolean>`(payment_provider = 'MINT_VOUCHER' AND data IS NULL)`;

/**
 * PENDING intents with no provider session that are due, locked: past their expiration (a mint
 * voucher's only while it has no voucher: a signed one's watcher ends its hold), or a voucher
 * intent unsigned for UNFINISHED_AFTER_SECONDS; rows another transaction holds are passed over.
 */
export function lockDueIntents(db: Tx, limit: number): Promise<PurchaseIntentRow[]> {
  return db
    .selectFrom('purchase_intents')
    .selectAll()
    .where('status', '=', 'PENDING')
    .where(sql<boolean>`NOT ${hasProviderSession}`)
    .where(
      sql<boolean>`((expiration <= now() AND (payment_provider <> 'MINT_VOUCHER' OR data IS NULL))
        OR (${unsigned} AND created_at <= now() - make_interval(secs => ${UNFINISHED_AFTER_SECONDS})))`,
    )
    .orderBy('expiration')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/**
 * Email claim sales sold with their intent whose completion has not run for
 * UNFINISHED_AFTER_SECONDS (a crash between the two): their ids, oldest first.
 */
export async function unfinishedClaimSales(db: Executor, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('purchase_intents')
    .select('id')
    .where('payment_provider', '=', 'EMAIL_CLAIM')
    .where('status', '=', 'CONFIRMED')
    .where('fulfillment_status', '=', 'PENDING')
    .where('created_at', '<=', sql<Date>`now() - make_interval(secs => ${UNFINISHED_AFTER_SECONDS})`)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** PENDING intents past their expiration whose provider session must be settled first. */
export async function dueProviderIntents(db: Executor, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('purchase_intents')
    .select('id')
    .where('status', '=', 'PENDING')
    .where('expiration', '<=', sql<Date>`now()`)
    .where(hasProviderSession)
    .orderBy('expiration')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** PENDING intents with a provider session opened over `seconds` ago and not yet due, oldest first. */
export async function pendingProviderIntents(
  db: Executor,
  seconds: number,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('purchase_intents')
    .select('id')
    .where('status', '=', 'PENDING')
    .where('expiration', '>', sql<Date>`now()`)
    .where('created_at', '<=', sql<Date>`now() - make_interval(secs => ${seconds})`)
    .where(hasProviderSession)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export function lockPendingIntentsOfListing(db: Tx, listingId: string): Promise<PurchaseIntentRow[]> {
  return db
    .selectFrom('purchase_intents')
    .selectAll()
    .where('listing_id', '=', listingId)
    .where('status', '=', 'PENDING')
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Units of a listing's CONFIRMED intents whose delivery has not ended (ASSIGNED). */
export async function unitsInDelivery(db: Executor, listingId: string): Promise<bigint> {
  const row = await db
    .selectFrom('purchase_intents')
    .select(sql<string>`coalesce(sum(quantity), 0)::text`.as('units'))
    .where('listing_id', '=', listingId)
    .where('status', '=', 'CONFIRMED')
    .where('fulfillment_status', '=', 'ASSIGNED')
    .executeTakeFirstOrThrow();
  return BigInt(row.units);
}

/** Intents a delivery transaction carries, still being fulfilled, locked (settlement). */
/** The intents still in delivery (ASSIGNED) among `ids`, locked in id order. */
export function lockAssignedIntents(db: Tx, ids: readonly string[]): Promise<PurchaseIntentRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('purchase_intents')
    .selectAll()
    .where('id', 'in', ids)
    .where('fulfillment_status', '=', 'ASSIGNED')
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** A PENDING MINT_VOUCHER intent of the minter on a contract (one voucher pending at a time). */
export async function pendingVoucherIntentOf(
  db: Executor,
  collectionId: string,
  ethAddress: string,
  madeBefore?: string,
): Promise<string | undefined> {
  let query = db
    .selectFrom('purchase_intents as pi')
    .innerJoin('listings as l', 'l.id', 'pi.listing_id')
    .select('pi.id')
    .where('l.collection_id', '=', collectionId)
    .where('pi.eth_address', '=', ethAddress)
    .where('pi.payment_provider', '=', 'MINT_VOUCHER')
    .where('pi.status', '=', 'PENDING');
  // Ids are UUIDv7: time-ordered.
  if (madeBefore !== undefined) query = query.where('pi.id', '<', madeBefore);
  const row = await query.executeTakeFirst();
  return row?.id;
}

export interface IntentFilters {
  organizationId: string | undefined;
  itemId: string | undefined;
  collectionId: string | undefined;
  listingId: string | undefined;
  statuses: PurchaseIntentStatus[] | undefined;
  email: string | undefined;
  ethAddress: string | undefined;
  fulfillmentStatuses: FulfillmentStatus[] | undefined;
  fulfillmentMethods: FulfillmentMethod[] | undefined;
  providers: PaymentProvider[] | undefined;
  /** true: with a payment_mismatch only; false: without one only. */
  paymentMismatch: boolean | undefined;
}

export function listIntents(
  db: Executor,
  page: PageParams,
  filters: IntentFilters,
): Promise<PageResult<PurchaseIntentRow>> {
  let query = db.selectFrom('purchase_intents').selectAll();
  if (filters.organizationId !== undefined)
    query = query.where('organization_id', '=', filters.organizationId);
  if (filters.listingId !== undefined) query = query.where('listing_id', '=', filters.listingId);
  if (filters.collectionId !== undefined) {
    const collectionId = filters.collectionId;
    query = query.where('listing_id', 'in', (eb) =>
      eb.selectFrom('listings').select('listings.id').where('listings.collection_id', '=', collectionId),
    );
  }
  if (filters.itemId !== undefined) {
    const itemId = filters.itemId;
    query = query.where(({ or, eb }) =>
      or([
        eb(sql`${itemId}::uuid`, '=', sql`ANY(item_ids)`),
        eb(
          'listing_id',
          'in',
          eb.selectFrom('listings').select('listings.id').where('listings.item_id', '=', itemId),
        ),
      ]),
    );
  }
  if (filters.statuses?.length) query = query.where('status', 'in', filters.statuses);
  if (filters.email !== undefined) query = query.where(sql`lower(email)`, '=', filters.email.toLowerCase());
  if (filters.ethAddress !== undefined) query = query.where('eth_address', '=', filters.ethAddress);
  if (filters.fulfillmentStatuses?.length)
    query = query.where('fulfillment_status', 'in', filters.fulfillmentStatuses);
  if (filters.fulfillmentMethods?.length)
    query = query.where('fulfillment_method', 'in', filters.fulfillmentMethods);
  if (filters.providers?.length) query = query.where('payment_provider', 'in', filters.providers);
  if (filters.paymentMismatch !== undefined)
    query = query.where('payment_mismatch', filters.paymentMismatch ? 'is not' : 'is', null);
  return paginate(query, {
    page,
    filters: { ...filters },
    sortColumn: 'purchase_intents.created_at',
    sortKind: 'timestamp',
    sortValue: (row) => row.created_at,
    idColumn: 'purchase_intents.id',
    idKind: 'uuid',
    idValue: (row) => row.id,
  });
}
