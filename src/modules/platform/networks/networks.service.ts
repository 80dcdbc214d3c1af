import type { Kysely } from 'kysely';
import { type Address, getAddress } from 'viem';
import { isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import { NotAnErc20Error, readErc20Metadata } from '../../../chain/erc20.ts';
import { type ChainClient, readableReason } from '../../../chain/rpc.ts';
import type { Deps } from '../../../context.ts';
import { isUniqueViolation } from '../../../db/errors.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { Database, NetworkConfig, NetworkRow, PaymentTokenRow } from '../../../db/schema.ts';
import { checkedAddress, checkedUint256 } from '../../../http/inputs.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError, type FieldError } from '../../../lib/errors.ts';
import * as repo from './networks.repository.ts';
import {
  type AddPaymentTokenBody,
  CONFIG_DEFAULTS,
  type CreateNetworkBody,
  type EditNetworkBody,
  type Network,
  type NetworkConfigInput,
  type NetworkConfigPatch,
  type PaymentToken,
} from './networks.schemas.ts';

export type { NetworkRow } from '../../../db/schema.ts';

export function toPaymentToken(row: PaymentTokenRow): PaymentToken {
  return {
    address: row.address,
    symbol: row.symbol,
    decimals: row.decimals,
    network_id: row.network_id,
    eth: row.eth,
    eur_stablecoin: row.eur_stablecoin,
    usd_stablecoin: row.usd_stablecoin,
  };
}

export interface NetworkWithTokens {
  network: NetworkRow;
  paymentTokens: PaymentTokenRow[];
}

/**
 * Node URLs often carry an API key (in the path, query or user info): only platform admins see
 * the whole URL; everyone else sees its origin.
 */
export function toNetwork({ network, paymentTokens }: NetworkWithTokens, principal: Principal): Network {
  const config = networkConfigOf(network);
  return {
    id: network.id,
    name: network.name,
    enabled: network.enabled,
    testnet: network.testnet,
    payment_tokens: paymentTokens.map(toPaymentToken),
    config: isPlatformAdmin(principal) ? config : { ...config, url: originOf(config.url) },
    created_at: iso(network.created_at),
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/**
 * The stored config with every field present: rows written before a field existed (or by hand)
 * read as the field's default, so readers never meet a missing field.
 */
export function networkConfigOf(network: NetworkRow): NetworkConfig {
  const stored = network.config as Partial<NetworkConfig>;
  return {
    ...CONFIG_DEFAULTS,
    ...stored,
    gasStrategy: { ...CONFIG_DEFAULTS.gasStrategy, ...stored.gasStrategy },
    batch: { ...CONFIG_DEFAULTS.batch, ...stored.batch },
    url: stored.url ?? '',
  };
}

export async function getNetwork(db: Executor, id: number): Promise<NetworkWithTokens> {
  const network = await repo.findNetwork(db, id);
  if (!network) throw new ApiError('NOT_FOUND', `network ${id} not found`);
  return { network, paymentTokens: await repo.listPaymentTokensOfNetworks(db, [id]) };
}

/** A network, or undefined; for other modules that look one up by id. */
export function findNetwork(db: Executor, id: number): Promise<NetworkRow | undefined> {
  return repo.findNetwork(db, id);
}

/** A payment token of a network by its address (any case), or undefined. */
export function findPaymentToken(
  db: Executor,
  networkId: number,
  address: string,
): Promise<PaymentTokenRow | undefined> {
  return repo.findPaymentToken(db, networkId, getAddress(address.toLowerCase()));
}

/** A payment token of a network by its symbol (case-insensitive), or undefined. */
export function findPaymentTokenBySymbol(
  db: Executor,
  networkId: number,
  symbol: string,
): Promise<PaymentTokenRow | undefined> {
  return repo.findPaymentTokenBySymbol(db, networkId, symbol);
}

/** The client of a network's node (the one place a network row becomes a client). */
export function chainClientOf(deps: Pick<Deps, 'chain'>, network: NetworkRow): ChainClient {
  return deps.chain.forNetwork({ id: network.id, url: networkConfigOf(network).url });
}

/**
 * The client of a registered, enabled network, for reads on behalf of a collection or a
 * transaction: a network gone or disabled since is INVALID_STATE.
 */
export async function chainClientFor(
  db: Executor,
  deps: Pick<Deps, 'chain'>,
  networkId: number,
): Promise<{ network: NetworkRow; client: ChainClient }> {
  const network = await repo.findNetwork(db, networkId);
  if (!network) throw new ApiError('INVALID_STATE', `network ${networkId} is not registered`);
  if (!network.enabled) throw new ApiError('INVALID_STATE', `network ${networkId} is disabled`);
  return { network, client: chainClientOf(deps, network) };
}

/** The ids among `ids` that name no registered network. */
export async function unknownNetworkIds(db: Executor, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('networks')
    .select('id')
    .where('id', 'in', [...ids])
    .execute();
  const known = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !known.has(id));
}

/** Every enabled network, with its config read whole (the relayer's view). */
export async function allEnabledNetworks(db: Executor): Promise<NetworkRow[]> {
  const rows = await repo.listAllEnabledNetworks(db);
  return rows.map((row) => ({ ...row, config: networkConfigOf(row) }));
}

/** The networks among `ids` that are registered and enabled, ordered by id. */
export function listEnabledNetworks(db: Executor, ids: readonly number[]): Promise<NetworkRow[]> {
  return repo.listEnabledNetworks(db, ids);
}

export async function listNetworks(db: Executor, page: PageParams): Promise<PageResult<NetworkWithTokens>> {
  const result = await repo.listNetworks(db, page);
  const tokens = await repo.listPaymentTokensOfNetworks(
    db,
    result.results.map((n) => n.id),
  );
  return {
    ...result,
    results: result.results.map((network) => ({
      network,
      paymentTokens: tokens.filter((t) => t.network_id === network.id),
    })),
  };
}

/**
 * Registers a network (platform admins). The node at `config.url` must answer `eth_chainId`
 * with the network's id, so a network can never point at another chain; payment tokens given
 * here are added as by addPaymentToken, all or nothing.
 */
export async function createNetwork(
  db: Executor,
  deps: Deps,
  body: CreateNetworkBody,
): Promise<NetworkWithTokens> {
  if (await repo.findNetwork(db, body.id)) throw alreadyExists(body.id);
  const config = completeConfig(body.config);
  checkConfig(config, '/config');
  const tokens = (body.payment_tokens ?? []).map((token, i) => ({
    ...token,
    address: checkedAddress(token.address, `/payment_tokens/${i}/address`),
  }));
  tokens.forEach((token, i) => {
    const first = tokens.findIndex((t) => t.address === token.address);
    if (first !== i) {
      throw validationFailed(`payment token ${token.address} is listed twice`, [
        { path: `/payment_tokens/${i}/address`, message: `same address as /payment_tokens/${first}/address` },
      ]);
    }
  });

  // A disabled network's node is not asked anything: an operator may register a network before
  // its node is reachable. Its chain id is checked when it is enabled (editNetwork).
  if (!body.enabled && tokens.length > 0)
    throw validationFailed(
      'payment tokens are added once the network is enabled (their symbol and decimals are read from its node)',
      [{ path: '/payment_tokens', message: 'must be empty or absent while enabled is false' }],
    );
  let metadata: { symbol: string; decimals: number }[] = [];
  if (body.enabled) {
    await checkChainId(deps, body.id, config.url, ['/id', '/config/url']);
    const client = deps.chain.forNetwork({ id: body.id, url: config.url });
    metadata = await Promise.all(
      tokens.map((token, i) => readTokenMetadata(client, token.address, `/payment_tokens/${i}/address`)),
    );
  }

  let network: NetworkRow;
  try {
    network = await repo.insertNetwork(db, {
      id: body.id,
      name: body.name,
      enabled: body.enabled,
      testnet: body.testnet,
      config,
    });
  } catch (error) {
    if (isUniqueViolation(error, 'networks_pkey')) throw alreadyExists(body.id);
    throw error;
  }
  // One after the other: each insert checks the symbols of the ones before it.
  for (const [i, token] of tokens.entries()) {
    const { symbol, decimals } = metadata[i]!;
    const row = { ...tokenFlags(token), network_id: network.id, address: token.address, symbol, decimals };
    await insertPaymentToken(db, row);
  }
  // Read back, so the order is the database's, as on every other read.
  return { network, paymentTokens: await repo.listPaymentTokensOfNetworks(db, [network.id]) };
}

/**
 * Edits a network (platform admins). Null leaves a field as it is; `config` merges field by
 * field (gasStrategy too). An enabled network's node must answer with its chain id: checked when
 * the network is enabled and when its url changes while enabled. The node is asked with nothing
 * locked; then the row is locked and the edit made again on it, the node asked once more only if
 * the url to check changed meanwhile (another edit committed in between).
 */
export async function editNetwork(
  db: Kysely<Database>,
  deps: Deps,
  id: number,
  body: EditNetworkBody,
): Promise<NetworkWithTokens> {
  for (let attempt = 1; ; attempt++) {
    const seen = await repo.findNetwork(db, id);
    if (!seen) throw new ApiError('NOT_FOUND', `network ${id} not found`);
    const checked = networkEdit(seen, body).urlToCheck;
    if (checked !== undefined) await checkChainId(deps, id, checked.url, checked.paths);
    const edited = await db.transaction().execute(async (tx) => {
      const current = await repo.findNetworkForUpdate(tx, id);
      if (!current) throw new ApiError('NOT_FOUND', `network ${id} not found`);
      const { patch, urlToCheck } = networkEdit(current, body);
      if (urlToCheck !== undefined && urlToCheck.url !== checked?.url) return undefined;
      const network = Object.keys(patch).length === 0 ? current : await repo.updateNetwork(tx, id, patch);
      return { network, paymentTokens: await repo.listPaymentTokensOfNetworks(tx, [id]) };
    });
    if (edited) return edited;
    if (attempt >= 3)
      throw new ApiError('INVALID_STATE', `network ${id} kept changing while it was edited: try again`);
  }
}

/** The changes an edit makes to `current`, and the url whose node must answer first, if any. */
function networkEdit(
  current: NetworkRow,
  body: EditNetworkBody,
): { patch: repo.NetworkUpdate; urlToCheck?: { url: string; paths: string[] } } {
  const patch: repo.NetworkUpdate = {};
  if (body.name != null) patch.name = body.name;
  if (body.enabled != null) patch.enabled = body.enabled;
  if (body.testnet != null) patch.testnet = body.testnet;
  if (body.config != null) {
    const before = networkConfigOf(current);
    const config = mergeConfig(before, body.config);
    checkConfig(config, '/config');
    patch.config = config;
  }
  // The node must answer with the network's chain id whenever the network is (or becomes)
  // enabled on a url not checked yet: on enabling, and on a url change while enabled.
  const enabled = patch.enabled ?? current.enabled;
  const url = patch.config?.url ?? networkConfigOf(current).url;
  if (enabled && (!current.enabled || url !== networkConfigOf(current).url))
    return { patch, urlToCheck: { url, paths: ['/config/url', ...(current.enabled ? [] : ['/enabled'])] } };
  return { patch };
}

export async function listPaymentTokens(
  db: Executor,
  networkId: number,
  page: PageParams,
): Promise<PageResult<PaymentTokenRow>> {
  if (!(await repo.findNetwork(db, networkId)))
    throw new ApiError('NOT_FOUND', `network ${networkId} not found`);
  return repo.listPaymentTokens(db, networkId, page);
}

/**
 * Adds an ERC-20 payment token to a network (platform admins); its symbol and decimals are read
 * from the chain (with nothing locked), so they cannot be mistyped. Symbols are unique per network
 * (case-insensitive): listings name their currency by symbol.
 */
export async function addPaymentToken(
  db: Kysely<Database>,
  deps: Deps,
  networkId: number,
  body: AddPaymentTokenBody,
): Promise<PaymentTokenRow> {
  const seen = await repo.findNetwork(db, networkId);
  if (!seen) throw new ApiError('NOT_FOUND', `network ${networkId} not found`);
  const address = checkedAddress(body.address, '/address');
  const taken = () =>
    new ApiError('ALREADY_EXISTS', `${address} is already a payment token of network ${networkId}`);
  if (await repo.findPaymentToken(db, networkId, address)) throw taken();
  const { symbol, decimals } = await readTokenMetadata(chainClientOf(deps, seen), address, '/address');
  return db.transaction().execute(async (tx) => {
    // Locked: two tokens added at once cannot both take one symbol.
    if (!(await repo.findNetworkForUpdate(tx, networkId)))
      throw new ApiError('NOT_FOUND', `network ${networkId} not found`);
    if (await repo.findPaymentToken(tx, networkId, address)) throw taken();
    return insertPaymentToken(tx, { ...tokenFlags(body), network_id: networkId, address, symbol, decimals });
  });
}

async function insertPaymentToken(
  db: Executor,
  token: Omit<PaymentTokenRow, 'created_at'>,
): Promise<PaymentTokenRow> {
  const sameSymbol = await repo.findPaymentTokenBySymbol(db, token.network_id, token.symbol);
  if (sameSymbol) {
    throw new ApiError(
      'ALREADY_EXISTS',
      `network ${token.network_id} already has a payment token with symbol ${token.symbol} (${sameSymbol.address})`,
    );
  }
  try {
    return await repo.insertPaymentToken(db, token);
  } catch (error) {
    if (isUniqueViolation(error, 'payment_tokens_pkey')) {
      throw new ApiError(
        'ALREADY_EXISTS',
        `${token.address} is already a payment token of network ${token.network_id}`,
      );
    }
    throw error;
  }
}

function tokenFlags(body: AddPaymentTokenBody) {
  return {
    eth: body.eth ?? false,
    eur_stablecoin: body.eur_stablecoin ?? false,
    usd_stablecoin: body.usd_stablecoin ?? false,
  };
}

export const DEV_CHAIN_NETWORK_NAME = 'Dev chain (anvil)';

/** What an organization wallet on the dev chain gets from the platform wallet when it runs dry. */
export const DEV_CHAIN_AUTO_FUND_WEI = 10n ** 18n;

/**
 * The embedded dev chain's network (DESIGN.md "Embedded default"): registered on first start,
 * its url updated when anvil came up on another port; whatever else an admin changed is kept.
 * Returns the row and whether it was created now.
 */
export async function registerDevChainNetwork(
  db: Tx,
  chainId: number,
  rpcUrl: string,
): Promise<{ network: NetworkRow; created: boolean }> {
  const created = await repo.insertNetworkIfAbsent(db, {
    id: chainId,
    name: DEV_CHAIN_NETWORK_NAME,
    enabled: true,
    testnet: true,
    config: { ...CONFIG_DEFAULTS, autoFundAmount: DEV_CHAIN_AUTO_FUND_WEI.toString(), url: rpcUrl },
  });
  if (created) return { network: created, created: true };
  const current = await repo.findNetworkForUpdate(db, chainId);
  if (!current) throw new Error(`network ${chainId} vanished while it was registered`);
  const config = networkConfigOf(current);
  if (config.url === rpcUrl) return { network: current, created: false };
  return {
    network: await repo.updateNetwork(db, chainId, { config: { ...config, url: rpcUrl } }),
    created: false,
  };
}

function completeConfig(input: NetworkConfigInput): NetworkConfig {
  return {
    ...CONFIG_DEFAULTS,
    ...input,
    gasStrategy: { ...CONFIG_DEFAULTS.gasStrategy, ...input.gasStrategy },
    batch: { ...CONFIG_DEFAULTS.batch, ...input.batch },
  } as NetworkConfig;
}

function mergeConfig(current: NetworkConfig, patch: NetworkConfigPatch): NetworkConfig {
  return {
    ...current,
    ...patch,
    gasStrategy: { ...current.gasStrategy, ...patch.gasStrategy },
    batch: { ...current.batch, ...patch.batch },
  } as NetworkConfig;
}

/** Rules across fields, which the schema cannot express. */
function checkConfig(config: NetworkConfig, at: string): void {
  let url: URL | undefined;
  try {
    url = new URL(config.url);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.hostname === '') {
    throw validationFailed('config.url must be an http or https URL', [
      { path: `${at}/url`, message: 'must be an http or https URL with a host' },
    ]);
  }
  checkedUint256(config.autoFundAmount, `${at}/autoFundAmount`);
  const { maxFeePerGas, maxPriorityFeePerGas } = config.gasStrategy;
  const maxFee =
    maxFeePerGas === null ? null : checkedUint256(maxFeePerGas, `${at}/gasStrategy/maxFeePerGas`);
  const maxPriorityFee =
    maxPriorityFeePerGas === null
      ? null
      : checkedUint256(maxPriorityFeePerGas, `${at}/gasStrategy/maxPriorityFeePerGas`);
  if (maxFee !== null && maxPriorityFee !== null && maxPriorityFee > maxFee) {
    throw validationFailed('gasStrategy.maxPriorityFeePerGas cannot exceed gasStrategy.maxFeePerGas', [
      { path: `${at}/gasStrategy/maxPriorityFeePerGas`, message: 'must not exceed maxFeePerGas' },
    ]);
  }
}

/** The node must answer, with the network's chain id. */
async function checkChainId(deps: Deps, id: number, url: string, paths: string[]): Promise<void> {
  let chainId: number;
  try {
    chainId = await deps.chain.forNetwork({ id, url }).chainId();
  } catch (error) {
    throw new ApiError(
      'UPSTREAM_FAILED',
      `the node at config.url did not answer eth_chainId: ${readableReason(error)}`,
    );
  }
  if (chainId !== id) {
    throw validationFailed(`the node at config.url is on chain ${chainId}, not ${id}`, [
      ...paths.map((path) => ({ path, message: `the node at config.url reports chain id ${chainId}` })),
    ]);
  }
}

async function readTokenMetadata(
  client: ChainClient,
  address: Address,
  path: string,
): Promise<{ symbol: string; decimals: number }> {
  let metadata: { symbol: string; decimals: number };
  try {
    metadata = await readErc20Metadata(client, address);
  } catch (error) {
    if (error instanceof NotAnErc20Error) {
      throw validationFailed(`${address} is not an ERC-20 token: ${error.message}`, [
        { path, message: 'is not an ERC-20 token (symbol() and decimals() must answer)' },
      ]);
    }
    throw new ApiError(
      'UPSTREAM_FAILED',
      `the network's node failed reading ${address}: ${readableReason(error)}`,
    );
  }
  // The symbol names the currency of listings: it must be a readable, short name.
  const symbol = metadata.symbol.trim();
  if (symbol.length === 0 || symbol.length > 32 || /\p{Cc}/u.test(symbol)) {
    throw validationFailed(`${address} has no usable symbol (${JSON.stringify(metadata.symbol)})`, [
      { path, message: 'symbol() must be 1 to 32 printable characters' },
    ]);
  }
  return { symbol, decimals: metadata.decimals };
}

function validationFailed(detail: string, fields: FieldError[]): ApiError {
  return new ApiError('VALIDATION_FAILED', detail, { fields });
}

function alreadyExists(id: number): ApiError {
  return new ApiError('ALREADY_EXISTS', `network ${id} already exists`);
}
