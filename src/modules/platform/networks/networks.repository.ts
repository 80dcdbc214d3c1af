import type { Executor, Tx } from '../../../db/executor.ts';
import type { NetworkConfig, NetworkRow, PaymentTokenRow } from '../../../db/schema.ts';
import { type PageParams, type PageResult, paginate } from '../../../http/pagination.ts';

export interface NewNetwork {
  id: number;
  name: string;
  enabled: boolean;
  testnet: boolean;
  config: NetworkConfig;
}

export interface NetworkUpdate {
  name?: string;
  enabled?: boolean;
  testnet?: boolean;
  config?: NetworkConfig;
}

export function findNetwork(db: Executor, id: number): Promise<NetworkRow | undefined> {
  return db.selectFrom('networks').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findNetworkForUpdate(db: Tx, id: number): Promise<NetworkRow | undefined> {
  return db.selectFrom('networks').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function insertNetwork(db: Executor, network: NewNetwork): Promise<NetworkRow> {
  return db
    .insertInto('networks')
    .values({ ...network, config: JSON.stringify(network.config) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Inserts the network unless one with its id exists; returns the new row, or undefined. */
export function insertNetworkIfAbsent(db: Executor, network: NewNetwork): Promise<NetworkRow | undefined> {
  return db
    .insertInto('networks')
    .values({ ...network, config: JSON.stringify(network.config) })
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function updateNetwork(db: Executor, id: number, patch: NetworkUpdate): Promise<NetworkRow> {
  const { config, ...fields } = patch;
  return db
    .updateTable('networks')
    .set({ ...fields, ...(config && { config: JSON.stringify(config) }), updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listNetworks(db: Executor, page: PageParams): Promise<PageResult<NetworkRow>> {
  return paginate(db.selectFrom('networks').selectAll(), {
    page,
    filters: {},
    sortColumn: 'networks.created_at',
    sortKind: 'timestamp',
    sortValue: (r) => r.created_at,
    idColumn: 'networks.id',
    idKind: 'integer',
    idValue: (r) => r.id,
  });
}

/** The networks among `ids` that are registered and enabled, by id. */
export function listAllEnabledNetworks(db: Executor): Promise<NetworkRow[]> {
  return db.selectFrom('networks').selectAll().where('enabled', '=', true).orderBy('id').execute();
}

export function listEnabledNetworks(db: Executor, ids: readonly number[]): Promise<NetworkRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('networks')
    .selectAll()
    .where('id', 'in', [...ids])
    .where('enabled', '=', true)
    .orderBy('id')
    .execute();
}

export function findPaymentToken(
  db: Executor,
  networkId: number,
  address: string,
): Promise<PaymentTokenRow | undefined> {
  return db
    .selectFrom('payment_tokens')
    .selectAll()
    .where('network_id', '=', networkId)
    .where('address', '=', address)
    .executeTakeFirst();
}

export function findPaymentTokenBySymbol(
  db: Executor,
  networkId: number,
  symbol: string,
): Promise<PaymentTokenRow | undefined> {
  return db
    .selectFrom('payment_tokens')
    .selectAll()
    .where('network_id', '=', networkId)
    .where((eb) => eb(eb.fn('lower', ['symbol']), '=', symbol.toLowerCase()))
    .executeTakeFirst();
}

export function insertPaymentToken(
  db: Executor,
  token: Omit<PaymentTokenRow, 'created_at'>,
): Promise<PaymentTokenRow> {
  return db.insertInto('payment_tokens').values(token).returningAll().executeTakeFirstOrThrow();
}

/** Every payment token of the given networks, in the order of the token list. */
export function listPaymentTokensOfNetworks(
  db: Executor,
  networkIds: readonly number[],
): Promise<PaymentTokenRow[]> {
  if (networkIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('payment_tokens')
    .selectAll()
    .where('network_id', 'in', [...networkIds])
    .orderBy('network_id')
    .orderBy('address')
    .execute();
}

/**
 * A network's payment tokens, by address: a token's key is its address, and the keyset cursor
 * of http/pagination.ts breaks ties on a uuid or integer id only, which tokens do not have.
 */
export function listPaymentTokens(
  db: Executor,
  networkId: number,
  page: PageParams,
): Promise<PageResult<PaymentTokenRow>> {
  return paginate(db.selectFrom('payment_tokens').selectAll().where('network_id', '=', networkId), {
    page,
    filters: { networkId },
    sortColumn: 'payment_tokens.address',
    sortKind: 'text',
    sortValue: (r) => r.address,
    idColumn: 'payment_tokens.network_id',
    idKind: 'integer',
    idValue: (r) => r.network_id,
  });
}
