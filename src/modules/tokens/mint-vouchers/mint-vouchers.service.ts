import { type Address, getAddress, type Hex, hashTypedData, parseAbi, parseAbiItem, zeroAddress } from 'viem';
import {
  type MintVoucher,
  mintVoucherDomain,
  mintVoucherTypes,
  signMintVoucher,
} from '../../../chain/mint-voucher.ts';
import type { ChainClient } from '../../../chain/rpc.ts';
import type { Deps, VoucherHolders } from '../../../context.ts';
import { isUniqueViolation } from '../../../db/errors.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { MintVoucherRow, NetworkRow, VoucherHolderKind } from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { hitRateLimit, type RateLimit } from '../../../http/rate-limit.ts';
import { iso } from '../../../http/schemas.ts';
import { enqueue } from '../../../jobs/enqueue.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import {
  completeMint,
  deployedContractOf,
  lockItems,
  releaseItemReservations,
} from '../../catalog/items/item-flows.service.ts';
import {
  chainClientOf,
  findNetwork,
  findPaymentToken,
  findPaymentTokenBySymbol,
  networkConfigOf,
} from '../../platform/networks/networks.service.ts';
import { findOrganization } from '../../platform/organizations/organizations.service.ts';
import {
  ensurePlatformWallet,
  findPlatformWallet,
  organizationWalletOf,
  signerOf,
} from '../../platform/wallets/wallets.service.ts';
import { watchMintVouchersJob } from './mint-vouchers.jobs.ts';
import * as repo from './mint-vouchers.repository.ts';
import type { MintVoucherData, PublicMintVoucher, PublicMintVouchersQuery } from './mint-vouchers.schemas.ts';

/**
 * Mint vouchers (capability MINT_VOUCHER, contracts/src/SignatureERC721.sol): the organization's
 * wallet signs an EIP-712 voucher for one minter, who redeems it on chain with
 * `mintWithVoucher`, paying `price` to the contract, which splits it between the payout address
 * (`net_recipient`) and the platform fee recipient. The service never sends anything: it signs,
 * stores, and watches the chain for the redemption (watchNetworkVouchers).
 *
 * A voucher is held for a holder (an email claim or a purchase intent) that keeps the item
 * reserved; the holder learns the outcome through its VoucherHolder (the port voucherHolders): redeemed (the item is MINTED to the minter and the holder's
 * reservation of it ended first), or ended (EXPIRED, or CANCELLED when another voucher consumed
 * its nonce) so the holder releases or passes on its hold.
 *
 * One PENDING voucher per (contract, minter): the contract takes a minter's vouchers in nonce
 * order, so two vouchers signed with the same nonce would let either one be redeemed in place of
 * the other (a unique index; 409 INVALID_STATE).
 */

export interface VoucherHolder {
  kind: VoucherHolderKind;
  id: string;
}

export interface IssueVoucherRequest {
  organizationId: string;
  collectionId: string;
  itemId: string;
  minter: Address;
  /** Units; an item is one ERC-721 token, so 1. */
  quantity: bigint;
  /** Total price for `quantity`, fee included, in `currency` base units; 0 for a gift. */
  price: bigint;
  /** The ERC-20 paid (a payment token of the collection's network), or the zero address for the native coin. */
  currency: Address;
  /** The voucher's expiry (signed as unix seconds, rounded down). */
  expiry: Date;
  holder: VoucherHolder;
}

export interface IssuedVoucher {
  /** The mint_vouchers row id (an email claim's voucher_id). */
  id: string;
  /** The MINT_VOUCHER data a minter needs (docs/api.md: purchase intents' data). */
  data: MintVoucherData;
}

/** Per client address limit of the public list. */
export const LIMITS = {
  listPerIp: { name: 'mint-vouchers-list:ip', max: 120, windowSeconds: 60 },
} as const satisfies Record<string, RateLimit>;

const VOUCHER_ABI = parseAbi([
  'function nonces(address owner) view returns (uint256)',
  'function hasRole(bytes32 role, address account) view returns (bool)',
  'function VOUCHER_SIGNER_ROLE() view returns (bytes32)',
]);

export const VOUCHER_REDEEMED_EVENT = parseAbiItem(
  'event VoucherRedeemed(address indexed minter, uint256 indexed nonce, bytes32 indexed digest, uint256 firstTokenId, uint256 quantity)',
);

const BASIS_POINTS = 10_000n;

function lower(address: string): string {
  return address.toLowerCase();
}

/** The voucher as signed, from its row. */
export function mintVoucherOf(row: MintVoucherRow): MintVoucher {
  return {
    minter: getAddress(row.minter),
    tokenId: BigInt(row.token_id),
    quantity: BigInt(row.quantity),
    price: BigInt(row.price),
    currency: getAddress(row.currency),
    netRecipient: getAddress(row.net_recipient),
    feeRecipient: getAddress(row.fee_recipient),
    feeAmount: BigInt(row.fee_amount),
    nonce: BigInt(row.nonce),
    expiry: BigInt(row.expiry),
  };
}

/** The MINT_VOUCHER data of a stored voucher (integers as decimal strings, addresses checksummed). */
export function voucherDataOf(row: MintVoucherRow): MintVoucherData {
  return {
    contract: getAddress(row.contract_address),
    minter: getAddress(row.minter),
    network_id: row.network_id,
    signature: row.signature,
    voucher: {
      net_recipient: getAddress(row.net_recipient),
      initial_recipient: getAddress(row.fee_recipient),
      initial_recipient_amount: row.fee_amount,
      quantity: row.quantity,
      nonce: row.nonce,
      expiry: row.expiry,
      price: row.price,
      token_id: row.token_id,
      currency: getAddress(row.currency),
    },
  };
}

export function findVoucher(db: Executor, id: string): Promise<MintVoucherRow | undefined> {
  return repo.findVoucher(db, id);
}

/**
 * A holder's vouchers (an intent's, a claim's), newest first. A holder that ends before its
 * voucher (a cancelled intent) cannot stop the minter from redeeming it until `expiry`: its
 * `redeemed` handler still runs and decides what follows (e.g. UNRESOLVED).
 */
export function listVouchersOfHolder(db: Executor, holderId: string): Promise<MintVoucherRow[]> {
  return repo.listVouchersOfHolder(db, holderId);
}

/**
 * The `currency` of a voucher for a listing's currency: `ETH` is the network's native coin (the
 * zero address), anything else the symbol of a payment token of the network (400 otherwise).
 */
export async function voucherCurrencyOf(db: Executor, networkId: number, currency: string): Promise<Address> {
  if (currency === 'ETH') return zeroAddress;
  const token = await findPaymentTokenBySymbol(db, networkId, currency);
  if (!token) throw invalid('/currency', `neither ETH nor a payment token of network ${networkId}`);
  return getAddress(token.address);
}

async function chainRead<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new ApiError(
      'UPSTREAM_FAILED',
      `the network's node failed to answer ${what}: ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

/**
 * Where platform fees go: PLATFORM_FEE_ADDRESS, else the platform wallet (created here when the
 * service runs without a dev chain and has none yet).
 */
async function feeRecipientOf(db: Executor, deps: Deps): Promise<Address> {
  if (deps.config.platformFeeAddress !== undefined) return deps.config.platformFeeAddress;
  const platform = (await findPlatformWallet(db)) ?? (await ensurePlatformWallet(db, deps.keyring));
  return getAddress(platform.address);
}

/**
 * Issues a voucher in the caller's transaction: the collection's deployed contract must have the
 * MINT_VOUCHER capability and the organization's wallet its VOUCHER_SIGNER_ROLE (platform
 * deployments grant it to the wallet in the constructor), the item must belong to the collection
 * and not be minted; a priced voucher needs the organization's payout address. The fee is the
 * organization's platform_sale_fee basis points of the price, paid to PLATFORM_FEE_ADDRESS. The
 * nonce is the contract's nonces(minter). The caller keeps the item reserved for the holder.
 * Errors: 404 NOT_FOUND, 409 INVALID_STATE (a PENDING voucher of the minter on the contract, no
 * deployed contract), 409 ITEM_ALREADY_MINTED, 422 MISSING_MINT_CAPABILITY,
 * 422 PAYOUT_ADDRESS_REQUIRED, 400 VALIDATION_FAILED (quantity, currency, expiry, minter),
 * 502 UPSTREAM_FAILED (the node).
 */
export async function issueVoucher(
  db: Executor,
  deps: Deps,
  request: IssueVoucherRequest,
): Promise<IssuedVoucher> {
  const minter = checkedAddress(request.minter, '/minter');
  if (minter === zeroAddress) throw invalid('/minter', 'the zero address cannot mint');
  if (request.quantity !== 1n)
    throw invalid('/quantity', 'a voucher mints one ERC-721 item: quantity must be 1');
  if (request.price < 0n || request.price >= 2n ** 256n) throw invalid('/price', 'must be a Uint256');
  const expiry = BigInt(Math.floor(request.expiry.getTime() / 1000));
  if (request.expiry.getTime() <= Date.now()) throw invalid('/expiry', 'must be in the future');

  const organization = await findOrganization(db, request.organizationId);
  const collection = await findCollection(db, request.collectionId);
  if (!organization || !collection || collection.organization_id !== organization.id)
    throw new ApiError('NOT_FOUND', 'collection not found');
  const contract = deployedContractOf(collection);
  if (contract.tokenType !== 'ERC721' || !contract.capabilities.includes('MINT_VOUCHER'))
    throw new ApiError(
      'MISSING_MINT_CAPABILITY',
      'buyers mint with a voucher only on an ERC721 contract with the MINT_VOUCHER capability (SignatureERC721)',
    );
  if (minter === contract.address)
    throw invalid('/minter', "the collection's own contract cannot receive its tokens");
  const [item] = await lockItems(db, [request.itemId]);
  if (!item || item.collection_id !== collection.id) throw new ApiError('NOT_FOUND', 'item not found');
  if (BigInt(item.minted_supply) > 0n || item.token_status === 'MINTED')
    throw new ApiError('ITEM_ALREADY_MINTED', `item ${item.id} is minted`);
  if (item.token_status === 'MINTING')
    throw new ApiError('ITEM_RESERVED', `item ${item.id} is held by a mint in progress`);
  const external = collection.token_id_assignment_strategy === 'EXTERNAL';
  if (!external && item.token_id === null)
    throw new ApiError('INVALID_STATE', `item ${item.id} has no token id`);
  const tokenId = external ? 0n : BigInt(item.token_id!);

  const currency = checkedAddress(request.currency, '/currency');
  if (currency !== zeroAddress && !(await findPaymentToken(db, contract.networkId, currency)))
    throw invalid('/currency', `not a payment token of network ${contract.networkId}`);
  let netRecipient: Address = zeroAddress;
  if (request.price > 0n) {
    if (!organization.payout_address)
      throw new ApiError(
        'PAYOUT_ADDRESS_REQUIRED',
        'a priced voucher pays the organization: set its payout_address first',
      );
    netRecipient = getAddress(organization.payout_address);
  } else if (organization.payout_address) {
    netRecipient = getAddress(organization.payout_address);
  }
  const feeAmount = (request.price * BigInt(organization.platform_sale_fee)) / BASIS_POINTS;
  const feeRecipient = await feeRecipientOf(db, deps);

  const key = { networkId: contract.networkId, contract: lower(contract.address), minter: lower(minter) };
  if (await repo.findPendingVoucher(db, key)) throw onePending(minter);

  const network = await findNetwork(db, contract.networkId);
  if (!network?.enabled)
    throw new ApiError('INVALID_STATE', `network ${contract.networkId} is not available`);
  const client = chainClientOf(deps, network);
  const wallet = await organizationWalletOf(db, organization.id);
  const [head, nonce, signs] = await chainRead('the voucher reads', () =>
    Promise.all([
      client.blockNumber(),
      client.viem.readContract({
        address: contract.address,
        abi: VOUCHER_ABI,
        functionName: 'nonces',
        args: [minter],
      }),
      client.viem
        .readContract({ address: contract.address, abi: VOUCHER_ABI, functionName: 'VOUCHER_SIGNER_ROLE' })
        .then((role) =>
          client.viem.readContract({
            address: contract.address,
            abi: VOUCHER_ABI,
            functionName: 'hasRole',
            args: [role, getAddress(wallet.address)],
          }),
        ),
    ]),
  );
  if (!signs)
    throw new ApiError(
      'MISSING_MINT_CAPABILITY',
      "the organization's wallet does not hold the contract's VOUCHER_SIGNER_ROLE: grant it to sign vouchers",
    );

  const voucher: MintVoucher = {
    minter,
    tokenId,
    quantity: request.quantity,
    price: request.price,
    currency,
    netRecipient,
    feeRecipient,
    feeAmount,
    nonce,
    expiry,
  };
  const target = { chainId: network.id, contract: contract.address };
  const signature = await signMintVoucher(signerOf(deps.keyring, wallet), target, voucher);
  const digest = hashTypedData({
    domain: mintVoucherDomain(target.chainId, target.contract),
    types: mintVoucherTypes,
    primaryType: 'MintVoucher',
    message: voucher,
  });
  let row: MintVoucherRow;
  try {
    row = await repo.insertVoucher(db, {
      id: uuidv7(),
      organization_id: organization.id,
      collection_id: collection.id,
      item_id: item.id,
      network_id: network.id,
      contract_address: key.contract,
      minter: key.minter,
      token_id: tokenId,
      quantity: request.quantity,
      price: request.price,
      currency: lower(currency),
      net_recipient: lower(netRecipient),
      fee_recipient: lower(feeRecipient),
      fee_amount: feeAmount,
      nonce,
      expiry,
      signature,
      digest,
      issued_block: head,
      holder_kind: request.holder.kind,
      holder_id: request.holder.id,
    });
  } catch (error) {
    if (isUniqueViolation(error, 'mint_vouchers_pending_key')) throw onePending(minter);
    throw error;
  }
  await scheduleWatch(db, network.id);
  return { id: row.id, data: voucherDataOf(row) };
}

function invalid(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path.slice(1)}: ${message}`, { fields: [{ path, message }] });
}

function onePending(minter: Address): ApiError {
  return new ApiError(
    'INVALID_STATE',
    `${minter} already has a pending voucher on this contract: redeem it or let it expire first`,
  );
}

/** The minter's PENDING, unexpired vouchers (the public list). */
export async function listPublicMintVouchers(
  db: Executor,
  ethAddress: string,
  query: PublicMintVouchersQuery,
  ip: string,
): Promise<PageResult<PublicMintVoucher>> {
  await hitRateLimit(db, LIMITS.listPerIp, ip);
  const minter = checkedAddress(ethAddress, '/eth_address');
  const { contract_address, network_id, ...page } = query;
  const contract =
    contract_address === undefined ? undefined : checkedAddress(contract_address, '/contract_address');
  const result = await repo.listPendingOfMinter(db, page as PageParams, {
    minter: lower(minter),
    contract: contract === undefined ? undefined : lower(contract),
    networkId: network_id,
    now: BigInt(Math.floor(Date.now() / 1000)),
  });
  return {
    ...result,
    results: result.results.map((row) => ({
      id: row.id,
      ...voucherDataOf(row),
      created_at: iso(row.created_at),
    })),
  };
}

// ---- The watcher ----

/** How often a network with PENDING vouchers is looked at. */
export const WATCH_INTERVAL_MS = 2_000;

/** Queues the network's watch (replacing any queued one: one per network). */
export async function scheduleWatch(db: Executor, networkId: number, delayMs = 0): Promise<void> {
  await enqueue(
    db,
    watchMintVouchersJob,
    { network_id: networkId },
    { jobKey: `watch_mint_vouchers:${networkId}`, runAt: new Date(Date.now() + delayMs) },
  );
}

export type VoucherOutcome =
  | { kind: 'redeemed'; txHash: Hex; blockNumber: bigint; firstTokenId: bigint }
  | { kind: 'expired' }
  | { kind: 'cancelled' }
  | { kind: 'pending' };

/**
 * What the chain says of a PENDING voucher, as of the newest block `confirmations` deep:
 * redeemed (its VoucherRedeemed event, matched by minter, nonce and digest), cancelled (its nonce
 * was consumed by another voucher), expired (that block is past its expiry and its nonce unused:
 * no later block can take it, block timestamps never go back), or still pending.
 */
export async function voucherOutcome(
  client: ChainClient,
  voucher: MintVoucherRow,
  confirmed: { number: bigint; timestamp: bigint },
): Promise<VoucherOutcome> {
  const contract = getAddress(voucher.contract_address);
  const minter = getAddress(voucher.minter);
  const nonce = BigInt(voucher.nonce);
  const used = await client.viem.readContract({
    address: contract,
    abi: VOUCHER_ABI,
    functionName: 'nonces',
    args: [minter],
    blockNumber: confirmed.number,
  });
  if (used <= nonce)
    return confirmed.timestamp > BigInt(voucher.expiry) ? { kind: 'expired' } : { kind: 'pending' };
  const fromBlock = BigInt(voucher.issued_block);
  const logs = await client.viem.getLogs({
    address: contract,
    event: VOUCHER_REDEEMED_EVENT,
    args: { minter, nonce },
    fromBlock: fromBlock > confirmed.number ? confirmed.number : fromBlock,
    toBlock: confirmed.number,
  });
  const ours = logs.find((log) => log.args.digest?.toLowerCase() === voucher.digest.toLowerCase());
  if (ours?.transactionHash && ours.blockNumber !== null)
    return {
      kind: 'redeemed',
      txHash: ours.transactionHash,
      blockNumber: ours.blockNumber,
      firstTokenId: ours.args.firstTokenId ?? BigInt(voucher.token_id),
    };
  // The nonce went to another voucher (signed by another VOUCHER_SIGNER_ROLE key): ours is dead.
  if (logs.length > 0) return { kind: 'cancelled' };
  // Used, but its event is not found (a node that pruned its logs): look again later.
  return { kind: 'pending' };
}

/**
 * Applies an outcome to a voucher, in one database transaction, once: the row is locked and must
 * still be PENDING (a second run finds it settled and does nothing).
 */
export async function applyVoucherOutcome(
  db: Tx,
  deps: Deps,
  handlers: VoucherHolders,
  voucherId: string,
  outcome: VoucherOutcome,
): Promise<boolean> {
  if (outcome.kind === 'pending') return false;
  const voucher = await repo.lockVoucher(db, voucherId);
  if (voucher?.status !== 'PENDING') return false;
  const handler = handlers[voucher.holder_kind];
  switch (outcome.kind) {
    case 'redeemed': {
      await repo.updateVoucher(db, voucher.id, {
        status: 'REDEEMED',
        redeemed_tx_hash: outcome.txHash,
        redeemed_block: outcome.blockNumber.toString(),
        redeemed_token_id: outcome.firstTokenId.toString(),
      });
      const [item] = await lockItems(db, [voucher.item_id]);
      if (item && BigInt(item.minted_supply) === 0n) {
        const wallet = await organizationWalletOf(db, voucher.organization_id);
        await completeMint(db, {
          itemId: item.id,
          quantity: BigInt(voucher.quantity),
          toOrganizationWallet: lower(wallet.address) === voucher.minter,
          tokenId: item.token_id === null ? outcome.firstTokenId : undefined,
        });
      }
      await releaseItemReservations(db, voucher.holder_id, [voucher.item_id]);
      const updated = (await repo.findVoucher(db, voucher.id))!;
      await handler.redeemed(db, deps, updated);
      return true;
    }
    case 'expired':
    case 'cancelled': {
      await repo.updateVoucher(db, voucher.id, {
        status: outcome.kind === 'expired' ? 'EXPIRED' : 'CANCELLED',
      });
      const updated = (await repo.findVoucher(db, voucher.id))!;
      await handler.ended(db, deps, updated);
      return true;
    }
  }
}

/**
 * One look at a network's PENDING vouchers: the chain is read with no database transaction open,
 * then each voucher whose outcome is known is settled in its own short transaction. Returns how
 * many were settled and how many are still pending.
 */
export async function watchNetworkVouchers(
  db: Executor,
  deps: Deps,
  handlers: VoucherHolders,
  networkId: number,
): Promise<{ settled: number; pending: number }> {
  const network: NetworkRow | undefined = await findNetwork(db, networkId);
  // A network gone or disabled is looked at again by the minute's cron, not every few seconds.
  if (!network?.enabled) return { settled: 0, pending: 0 };
  const client = chainClientOf(deps, network);
  let confirmed: { number: bigint; timestamp: bigint } | undefined;
  let settled = 0;
  let pending = 0;
  let afterId: string | undefined;
  for (;;) {
    const vouchers = await repo.listPendingOfNetwork(db, networkId, WATCH_BATCH, afterId);
    if (vouchers.length === 0) break;
    afterId = vouchers.at(-1)!.id;
    if (confirmed === undefined) {
      const depth = BigInt(Math.max(1, networkConfigOf(network).confirmations)) - 1n;
      const head = await client.blockNumber();
      const number = head > depth ? head - depth : 0n;
      const block = await client.viem.getBlock({ blockNumber: number });
      confirmed = { number, timestamp: block.timestamp };
    }
    for (const voucher of vouchers) {
      let outcome: VoucherOutcome;
      try {
        outcome = await voucherOutcome(client, voucher, confirmed);
      } catch (error) {
        deps.logger.warn({ err: error, voucherId: voucher.id }, 'mint voucher: the chain could not be read');
        pending += 1;
        continue;
      }
      const done =
        outcome.kind !== 'pending' &&
        (await db
          .transaction()
          .execute((tx) => applyVoucherOutcome(tx, deps, handlers, voucher.id, outcome)));
      if (done) settled += 1;
      else pending += 1;
    }
    if (vouchers.length < WATCH_BATCH) break;
  }
  return { settled, pending };
}

const WATCH_BATCH = 200;
