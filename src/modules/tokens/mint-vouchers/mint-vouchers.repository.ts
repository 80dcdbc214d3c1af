import type { Insertable } from 'kysely';
import { sql } from 'kysely';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { MintVoucherRow, MintVouchersTable } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export type NewMintVoucher = Insertable<MintVouchersTable>;

export async function insertVoucher(db: Executor, voucher: NewMintVoucher): Promise<MintVoucherRow> {
  return db.insertInto('mint_vouchers').values(voucher).returningAll().executeTakeFirstOrThrow();
}

export function findVoucher(db: Executor, id: string): Promise<MintVoucherRow | undefined> {
  return db.selectFrom('mint_vouchers').selectAll().where('id', '=', id).executeTakeFirst();
}

export function lockVoucher(db: Tx, id: string): Promise<MintVoucherRow | undefined> {
  return db.selectFrom('mint_vouchers').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** A holder's vouchers, newest first. */
export function listVouchersOfHolder(db: Executor, holderId: string): Promise<MintVoucherRow[]> {
  return db
    .selectFrom('mint_vouchers')
    .selectAll()
    .where('holder_id', '=', holderId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** The PENDING voucher of a minter on a contract, if any (addresses lower-case). */
/**
 * The highest nonce of the minter's vouchers on the contract that the chain consumed (REDEEMED, or
 * CANCELLED: taken by another voucher), or undefined: a voucher signed with a nonce at or below it
 * could never be redeemed.
 */
export async function highestConsumedNonce(
  db: Executor,
  key: { networkId: number; contract: string; minter: string },
): Promise<bigint | undefined> {
  const row = await db
    .selectFrom('mint_vouchers')
    .select((eb) => eb.fn.max('nonce').as('nonce'))
    .where('status', 'in', ['REDEEMED', 'CANCELLED'])
    .where('network_id', '=', key.networkId)
    .where('contract_address', '=', key.contract)
    .where('minter', '=', key.minter)
    .executeTakeFirst();
  return row?.nonce == null ? undefined : BigInt(row.nonce);
}

export function findPendingVoucher(
  db: Executor,
  key: { networkId: number; contract: string; minter: string },
): Promise<MintVoucherRow | undefined> {
  return db
    .selectFrom('mint_vouchers')
    .selectAll()
    .where('status', '=', 'PENDING')
    .where('network_id', '=', key.networkId)
    .where('contract_address', '=', key.contract)
    .where('minter', '=', key.minter)
    .executeTakeFirst();
}

/** A network's PENDING vouchers in id order, `limit` of them after `afterId`. */
export function listPendingOfNetwork(
  db: Executor,
  networkId: number,
  limit: number,
  afterId?: string,
): Promise<MintVoucherRow[]> {
  let query = db
    .selectFrom('mint_vouchers')
    .selectAll()
    .where('status', '=', 'PENDING')
    .where('network_id', '=', networkId);
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.orderBy('id').limit(limit).execute();
}

export async function networksWithPending(db: Executor): Promise<number[]> {
  const rows = await db
    .selectFrom('mint_vouchers')
    .select('network_id')
    .distinct()
    .where('status', '=', 'PENDING')
    .execute();
  return rows.map((r) => r.network_id);
}

export type VoucherUpdate = Partial<
  Pick<MintVoucherRow, 'status' | 'redeemed_tx_hash' | 'redeemed_block' | 'redeemed_token_id'>
>;

export async function updateVoucher(db: Executor, id: string, update: VoucherUpdate): Promise<void> {
  await db
    .updateTable('mint_vouchers')
    .set({ ...update, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

export interface PendingVoucherFilters {
  minter: string;
  contract: string | undefined;
  networkId: number | undefined;
  /** Unix seconds: vouchers that expired before it are left out. */
  now: bigint;
}

/** A minter's PENDING vouchers that have not expired, oldest first. */
export function listPendingOfMinter(
  db: Executor,
  page: PageParams,
  filters: PendingVoucherFilters,
): Promise<PageResult<MintVoucherRow>> {
  let query = db
    .selectFrom('mint_vouchers as v')
    .selectAll('v')
    .where('v.status', '=', 'PENDING')
    .where('v.minter', '=', filters.minter)
    .where('v.expiry', '>=', sql<string>`${filters.now.toString()}::numeric`);
  if (filters.contract !== undefined) query = query.where('v.contract_address', '=', filters.contract);
  if (filters.networkId !== undefined) query = query.where('v.network_id', '=', filters.networkId);
  return paginate(query, {
    page,
    filters: { minter: filters.minter, contract: filters.contract, network: filters.networkId },
    sortColumn: 'v.created_at',
    sortKind: 'timestamp',
    sortValue: (v) => v.created_at,
    idColumn: 'v.id',
    idKind: 'uuid',
    idValue: (v) => v.id,
  }) as Promise<PageResult<MintVoucherRow>>;
}
