import { sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import type {
  ClaimDeactivationReason,
  EmailClaimRow,
  OutboxStatus,
  RequestState,
  TransactionState,
} from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';
import type { EmailClaimOrder } from './email-claims.schemas.ts';

/** A claim with what it shows of its item, collection, delivery transaction and latest mail. */
export interface EmailClaimView extends EmailClaimRow {
  token_id: string | null;
  attributes: Record<string, unknown>;
  collection_name: string;
  contract_address: string | null;
  network_id: number | null;
  transaction_state: TransactionState | null;
  tx_hash: string | null;
  /** The state of the mint or transfer record the redeem started (null before any redeem). */
  request_state: RequestState | null;
  /** A BUYER claim's redemption transaction, once its voucher is redeemed. */
  voucher_tx_hash: string | null;
  mail_status: OutboxStatus | null;
  mail_error: string | null;
  /** claimed_at, or a far future for unclaimed claims: the CLAIMED_AT sort key. */
  claimed_sort: Date;
}

/** Unclaimed claims sort after every claimed one (keyset pagination needs a non-null key). */
const NEVER = '9999-12-31T23:59:59.999Z';

function views(db: Executor) {
  return db
    .selectFrom('email_claims as c')
    .innerJoin('items', 'items.id', 'c.item_id')
    .innerJoin('collections', 'collections.id', 'c.collection_id')
    .leftJoin('transactions as t', 't.id', 'c.transaction_id')
    .leftJoin('mail_outbox as m', 'm.id', 'c.mail_outbox_id')
    .leftJoin('mint_vouchers as v', 'v.id', 'c.voucher_id')
    .leftJoin('mint_requests as mr', (join) =>
      join.onRef('mr.transaction_id', '=', 'c.transaction_id').onRef('mr.item_id', '=', 'c.item_id'),
    )
    .leftJoin('transfer_requests as tr', (join) =>
      join.onRef('tr.transaction_id', '=', 'c.transaction_id').onRef('tr.item_id', '=', 'c.item_id'),
    )
    .selectAll('c')
    .select([
      'items.token_id',
      'items.attributes',
      'collections.name as collection_name',
      'collections.contract_address',
      'collections.network_id',
      't.state as transaction_state',
      't.tx_hash',
      'm.status as mail_status',
      'm.last_error as mail_error',
      'v.redeemed_tx_hash as voucher_tx_hash',
      sql<RequestState | null>`coalesce(mr.state, tr.state)`.as('request_state'),
      sql<Date>`coalesce(c.claimed_at, ${NEVER}::timestamptz)`.as('claimed_sort'),
    ]);
}

export function findClaimView(db: Executor, id: string): Promise<EmailClaimView | undefined> {
  return views(db).where('c.id', '=', id).executeTakeFirst() as Promise<EmailClaimView | undefined>;
}

export function findClaimViewByTokenHash(
  db: Executor,
  tokenHash: Buffer,
): Promise<EmailClaimView | undefined> {
  return views(db).where('c.token_hash', '=', tokenHash).executeTakeFirst() as Promise<
    EmailClaimView | undefined
  >;
}

export interface EmailClaimFilters {
  organizationId: string | undefined;
  collectionIds: string[] | undefined;
  itemIds: string[] | undefined;
  tokenIds: string[] | undefined;
  email: string | undefined;
  claimed: boolean | undefined;
  active: boolean | undefined;
  orderBy: EmailClaimOrder;
}

const SORT: Record<EmailClaimOrder, { column: string; value: (v: EmailClaimView) => Date }> = {
  CREATED_AT: { column: 'v.created_at', value: (v) => v.created_at },
  EXPIRATION: { column: 'v.expiration', value: (v) => v.expiration },
  CLAIMED_AT: { column: 'v.claimed_sort', value: (v) => v.claimed_sort },
};

export function listClaims(
  db: Executor,
  page: PageParams,
  filters: EmailClaimFilters,
): Promise<PageResult<EmailClaimView>> {
  let inner = views(db);
  if (filters.organizationId !== undefined)
    inner = inner.where('c.organization_id', '=', filters.organizationId);
  if (filters.collectionIds?.length) inner = inner.where('c.collection_id', 'in', filters.collectionIds);
  if (filters.itemIds?.length) inner = inner.where('c.item_id', 'in', filters.itemIds);
  if (filters.tokenIds?.length) inner = inner.where('items.token_id', 'in', filters.tokenIds);
  if (filters.email !== undefined) inner = inner.where(sql`lower(c.email)`, '=', filters.email.toLowerCase());
  if (filters.claimed !== undefined)
    inner = inner.where('c.claimed_at', filters.claimed ? 'is not' : 'is', null);
  if (filters.active !== undefined) {
    const active = sql<boolean>`(c.active AND (c.claimed_at IS NOT NULL OR c.expiration > now()))`;
    inner = inner.where(filters.active ? active : sql<boolean>`NOT ${active}`);
  }
  const sort = SORT[filters.orderBy];
  const query = db.selectFrom(inner.as('v')).selectAll('v');
  return paginate(query, {
    page,
    filters: { ...filters },
    sortColumn: sort.column,
    sortKind: 'timestamp',
    sortValue: (v) => sort.value(v as EmailClaimView),
    idColumn: 'v.id',
    idKind: 'uuid',
    idValue: (v) => v.id,
  }) as Promise<PageResult<EmailClaimView>>;
}

export interface NewEmailClaim {
  id: string;
  organization_id: string;
  collection_id: string;
  item_id: string;
  email: string;
  quantity: bigint;
  tx_payer: 'SELLER' | 'BUYER';
  type: string | null;
  campaign_id: string | null;
  token_hash: Buffer;
  expiration: Date;
  /** The listing whose reservation holds the claim's units (an ERC-1155 sale), if any. */
  covered_by?: string | null;
}

export async function insertClaim(db: Executor, claim: NewEmailClaim): Promise<void> {
  await db
    .insertInto('email_claims')
    .values({ ...claim, quantity: claim.quantity.toString() })
    .execute();
}

/** The claim, locked for the change the caller makes (redeem, verify, resend, revoke, expiry). */
export function lockClaim(db: Tx, id: string): Promise<EmailClaimRow | undefined> {
  return db.selectFrom('email_claims').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function lockClaimByTokenHash(db: Tx, tokenHash: Buffer): Promise<EmailClaimRow | undefined> {
  return db
    .selectFrom('email_claims')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .forUpdate()
    .executeTakeFirst();
}

export type ClaimUpdate = Partial<
  Pick<
    EmailClaimRow,
    | 'email'
    | 'token_hash'
    | 'active'
    | 'deactivation_reason'
    | 'claimed_at'
    | 'to_address'
    | 'transaction_id'
    | 'voucher_id'
    | 'pin_hash'
    | 'pin_expires_at'
    | 'pin_failed_attempts'
    | 'last_pin_code_email_sent_at'
    | 'mail_outbox_id'
  >
>;

export async function updateClaim(db: Executor, id: string, update: ClaimUpdate): Promise<void> {
  await db
    .updateTable('email_claims')
    .set({ ...update, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/**
 * Active unclaimed claims past their expiration, locked; rows another transaction holds (a redeem
 * in progress) are passed over and seen again by the next sweep.
 */
export function lockDueClaims(db: Tx, limit: number): Promise<EmailClaimRow[]> {
  return db
    .selectFrom('email_claims')
    .selectAll()
    .where('active', '=', true)
    .where('claimed_at', 'is', null)
    .where('expiration', '<=', sql<Date>`now()`)
    .orderBy('expiration')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function deactivateClaims(
  db: Executor,
  ids: readonly string[],
  reason: ClaimDeactivationReason,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('email_claims')
    .set({ active: false, deactivation_reason: reason, updated_at: new Date() })
    .where('id', 'in', ids)
    .execute();
}

/** The claims a delivery transaction carries, locked (settlement). */
/** The claims, locked in id order (the order every path that locks several takes). */
export function lockClaims(db: Tx, ids: readonly string[]): Promise<EmailClaimRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('email_claims').selectAll().where('id', 'in', ids).orderBy('id').forUpdate().execute();
}

/**
 * The units of the claims a listing covers that may still deliver: active and either unclaimed or
 * claimed with their mint or transfer record still open (a reverted delivery reopens the claim).
 * `except`: a claim the caller is ending in its own transaction.
 */
export async function unitsOfCoveredClaims(
  db: Executor,
  listingId: string,
  except: string | undefined,
): Promise<bigint> {
  const open = (table: 'mint_requests' | 'transfer_requests') =>
    sql<boolean>`EXISTS (
      SELECT 1 FROM ${sql.table(table)} r
      WHERE r.transaction_id = c.transaction_id AND r.item_id = c.item_id
        AND r.state NOT IN ('COMPLETED', 'FAILED'))`;
  const row = await db
    .selectFrom('email_claims as c')
    .select(sql<string>`coalesce(sum(c.quantity), 0)::text`.as('units'))
    .where('c.covered_by', '=', listingId)
    .where('c.active', '=', true)
    .$if(except !== undefined, (qb) => qb.where('c.id', '<>', except!))
    .where(({ or, eb }) =>
      or([eb('c.claimed_at', 'is', null), open('mint_requests'), open('transfer_requests')]),
    )
    .executeTakeFirstOrThrow();
  return BigInt(row.units);
}

/** Whether the campaign exists in the organization. */
export async function campaignOfOrganization(
  db: Executor,
  campaignId: string,
  organizationId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('marketing_campaigns')
    .select('id')
    .where('id', '=', campaignId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return row !== undefined;
}
