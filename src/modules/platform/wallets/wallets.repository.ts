import type { Executor, Tx } from '../../../db/executor.ts';
import type { WalletRow } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export function insertWallet(db: Executor, wallet: Omit<WalletRow, 'created_at'>): Promise<WalletRow> {
  return db.insertInto('wallets').values(wallet).returningAll().executeTakeFirstOrThrow();
}

/** The wallet inserted, or undefined when a unique key (the one platform wallet) was taken. */
export function insertWalletUnlessTaken(
  db: Executor,
  wallet: Omit<WalletRow, 'created_at'>,
): Promise<WalletRow | undefined> {
  return db
    .insertInto('wallets')
    .values(wallet)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function findWallet(db: Executor, id: string): Promise<WalletRow | undefined> {
  return db.selectFrom('wallets').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findWalletByAddress(db: Executor, address: string): Promise<WalletRow | undefined> {
  return db.selectFrom('wallets').selectAll().where('address', '=', address).executeTakeFirst();
}

/** Locks the wallet's row until the caller's transaction ends. */
export async function lockWallet(db: Tx, id: string): Promise<void> {
  await db.selectFrom('wallets').select('id').where('id', '=', id).forUpdate().executeTakeFirst();
}

export function findOrganizationWallet(db: Executor, organizationId: string): Promise<WalletRow | undefined> {
  return db
    .selectFrom('wallets')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('kind', '=', 'ORGANIZATION')
    .executeTakeFirst();
}

export function findPlatformWallet(db: Executor): Promise<WalletRow | undefined> {
  return db.selectFrom('wallets').selectAll().where('kind', '=', 'PLATFORM').executeTakeFirst();
}

export function listWalletsOfOrganization(
  db: Executor,
  organizationId: string,
  page: PageParams,
): Promise<PageResult<WalletRow>> {
  return paginate(db.selectFrom('wallets').selectAll().where('organization_id', '=', organizationId), {
    page,
    filters: { organizationId },
    sortColumn: 'wallets.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'wallets.id',
    idKind: 'uuid',
    idValue: (r) => r.id,
  });
}
