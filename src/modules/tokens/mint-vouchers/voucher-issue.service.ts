import type { Kysely } from 'kysely';
import { type Address, getAddress, type Hex, hashTypedData, zeroAddress } from 'viem';
import {
  type MintVoucher,
  mintVoucherDomain,
  mintVoucherTypes,
  signMintVoucher,
  VOUCHER_ABI,
} from '../../../chain/mint-voucher.ts';
import type { ChainClient } from '../../../chain/rpc.ts';
import type { Deps } from '../../../context.ts';
import { isUniqueViolation } from '../../../db/errors.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { Database, MintVoucherRow, VoucherHolderKind } from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import { deployedContractOf, lockItems } from '../../catalog/items/item-flows.service.ts';
import { chainClientOf, findNetwork, findPaymentToken } from '../../platform/networks/networks.service.ts';
import { findOrganization } from '../../platform/organizations/organizations.service.ts';
import {
  ensurePlatformWallet,
  findPlatformWallet,
  organizationWalletOf,
  signerOf,
} from '../../platform/wallets/wallets.service.ts';
import * as repo from './mint-vouchers.repository.ts';
import type { MintVoucherData } from './mint-vouchers.schemas.ts';
import { voucherDataOf } from './mint-vouchers.service.ts';
import { scheduleWatchSoon } from './voucher-watch.service.ts';

/**
 * Issuing a mint voucher. What the chain must say (the head, the minter's next nonce, whether the
 * organization's wallet may sign) is read first, with no database transaction open
 * (readVoucherChain); the voucher is then checked, signed and stored in the caller's transaction,
 * which may hold row locks (a listing's, a claim's) but waits on no node (issueVoucher). A read
 * that went stale meanwhile (another voucher of the minter consumed the nonce) is read again
 * (withVoucherChain), and the watch of the network is queued once the voucher is committed.
 */

export interface VoucherHolderRef {
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
  holder: VoucherHolderRef;
}

export interface IssuedVoucher {
  /** The mint_vouchers row id (an email claim's voucher_id). */
  id: string;
  /** The MINT_VOUCHER data a minter needs (docs/api.md: purchase intents' data). */
  data: MintVoucherData;
}

/** Whose voucher, on which collection: what is read of the chain before issuing one. */
export interface VoucherTarget {
  organizationId: string;
  collectionId: string;
  minter: Address;
}

/**
 * What the chain said of a voucher's contract before any lock. `reads` is undefined when there
 * was nothing to read (no deployed MINT_VOUCHER contract, no network: issueVoucher refuses with
 * the reason), `failure` when the node did not answer (issueVoucher answers 502 where it would
 * have read).
 */
export interface VoucherChain {
  readonly target: VoucherTarget;
  readonly networkId?: number;
  readonly reads?: { head: bigint; nonce: bigint; signs: boolean };
  readonly failure?: string;
}

/** The voucher's chain state read again: the minter's nonce moved since it was read. */
export class VoucherChainStale extends Error {}

const BASIS_POINTS = 10_000n;
/** Reads of a stale chain state before giving up (another voucher of the minter keeps winning). */
const CHAIN_READS = 3;

function lower(address: string): string {
  return address.toLowerCase();
}

/**
 * The chain state a voucher needs, read with no database transaction open: the head block, the
 * contract's nonces(minter), and whether the organization's wallet holds VOUCHER_SIGNER_ROLE.
 */
export async function readVoucherChain(
  db: Kysely<Database>,
  deps: Deps,
  target: VoucherTarget,
): Promise<VoucherChain> {
  // The rows read on one connection taken once from the pool (a drop's buyers wait there), given
  // back before the node is asked.
  const rows = await db.connection().execute(async (connection) => {
    const collection = await findCollection(connection, target.collectionId);
    if (collection?.contract_address == null || collection.network_id === null) return undefined;
    const network = await findNetwork(connection, collection.network_id);
    const capable = (collection.capabilities ?? []).includes('MINT_VOUCHER');
    if (!network?.enabled || !capable) return { networkId: collection.network_id, readable: undefined };
    const wallet = await organizationWalletOf(connection, target.organizationId);
    const contract = getAddress(collection.contract_address);
    return { networkId: network.id, readable: { network, contract, wallet } };
  });
  if (rows === undefined) return { target };
  if (rows.readable === undefined) return { target, networkId: rows.networkId };
  const { network, contract, wallet } = rows.readable;
  const client = chainClientOf(deps, network);
  try {
    const role = await signerRoleOf(client, network.id, contract);
    const [head, nonce, signs] = await Promise.all([
      client.blockNumber(),
      client.viem.readContract({
        address: contract,
        abi: VOUCHER_ABI,
        functionName: 'nonces',
        args: [target.minter],
      }),
      client.viem.readContract({
        address: contract,
        abi: VOUCHER_ABI,
        functionName: 'hasRole',
        args: [role, getAddress(wallet.address)],
      }),
    ]);
    return { target, networkId: network.id, reads: { head, nonce, signs } };
  } catch (error) {
    return { target, networkId: network.id, failure: (error as Error).message.split('\n')[0] ?? 'no answer' };
  }
}

/**
 * The contract's VOUCHER_SIGNER_ROLE, a constant of its code: read once per process and contract,
 * so a voucher's reads are one round trip to the node, not two.
 */
const signerRoles = new Map<string, Hex>();

async function signerRoleOf(client: ChainClient, networkId: number, contract: Address): Promise<Hex> {
  const key = `${networkId}:${contract}`;
  let role = signerRoles.get(key);
  if (role === undefined) {
    role = await client.viem.readContract({
      address: contract,
      abi: VOUCHER_ABI,
      functionName: 'VOUCHER_SIGNER_ROLE',
    });
    signerRoles.set(key, role);
  }
  return role;
}

/**
 * `work` (a database transaction that calls issueVoucher) with the chain state read before it;
 * read again and run again when the state went stale before the transaction locked (at most
 * CHAIN_READS times). Once `work` has committed, the network's voucher watch is queued (a watch
 * lost to a crash here is resumed by the watcher's cron within a minute).
 */
export async function withVoucherChain<T>(
  db: Kysely<Database>,
  deps: Deps,
  target: VoucherTarget,
  work: (chain: VoucherChain) => Promise<T>,
): Promise<T> {
  for (let read = 1; ; read++) {
    const chain = await readVoucherChain(db, deps, target);
    let result: T;
    try {
      result = await work(chain);
    } catch (error) {
      if (error instanceof VoucherChainStale && read < CHAIN_READS) continue;
      if (error instanceof VoucherChainStale)
        throw new ApiError('UPSTREAM_FAILED', "the minter's nonce kept moving while its voucher was signed");
      throw error;
    }
    // The voucher is committed: a watch that fails to queue here is queued by the watcher's cron.
    if (chain.networkId !== undefined)
      await scheduleWatchSoon(db, chain.networkId).catch((error: unknown) =>
        deps.logger.warn({ err: error, networkId: chain.networkId }, 'the voucher watch was not queued'),
      );
    return result;
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
 * Issues a voucher in the caller's transaction, from `chain` (read before: withVoucherChain): the
 * collection's deployed contract must have the MINT_VOUCHER capability and the organization's
 * wallet its VOUCHER_SIGNER_ROLE (platform deployments grant it to the wallet in the
 * constructor), the item must belong to the collection and not be minted; a priced voucher needs
 * the organization's payout address. The fee is the organization's platform_sale_fee basis
 * points of the price, paid to PLATFORM_FEE_ADDRESS. The nonce is the contract's nonces(minter),
 * as read; one that a voucher of the minter consumed since is stale (VoucherChainStale). The
 * caller keeps the item reserved for the holder. Errors: 404 NOT_FOUND, 409 INVALID_STATE (a
 * PENDING voucher of the minter on the contract, no deployed contract), 409 ITEM_ALREADY_MINTED,
 * 422 MISSING_MINT_CAPABILITY, 422 PAYOUT_ADDRESS_REQUIRED, 400 VALIDATION_FAILED (quantity,
 * currency, expiry, minter), 502 UPSTREAM_FAILED (the node).
 */
export async function issueVoucher(
  db: Tx,
  deps: Deps,
  request: IssueVoucherRequest,
  chain: VoucherChain,
): Promise<IssuedVoucher> {
  const minter = checkedAddress(request.minter, '/minter');
  if (minter === zeroAddress) throw invalid('/minter', 'the zero address cannot mint');
  if (request.quantity !== 1n)
    throw invalid('/quantity', 'a voucher mints one ERC-721 item: quantity must be 1');
  if (request.price < 0n || request.price >= 2n ** 256n) throw invalid('/price', 'must be a Uint256');
  const expiry = BigInt(Math.floor(request.expiry.getTime() / 1000));
  if (request.expiry.getTime() <= Date.now()) throw invalid('/expiry', 'must be in the future');
  if (
    chain.target.collectionId !== request.collectionId ||
    chain.target.organizationId !== request.organizationId ||
    lower(chain.target.minter) !== lower(minter)
  )
    throw new Error('the chain state was read for another voucher');

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
  if (chain.failure !== undefined)
    throw new ApiError(
      'UPSTREAM_FAILED',
      `the network's node failed to answer the voucher reads: ${chain.failure}`,
    );
  // Read for another contract or network than the collection's now (redeployed since): read again.
  if (chain.reads === undefined || chain.networkId !== network.id) throw new VoucherChainStale();
  const { head, nonce, signs } = chain.reads;
  if (!signs)
    throw new ApiError(
      'MISSING_MINT_CAPABILITY',
      "the organization's wallet does not hold the contract's VOUCHER_SIGNER_ROLE: grant it to sign vouchers",
    );
  // The minter has no PENDING voucher here (checked above, and kept so by the unique index), so a
  // nonce consumed since the read was consumed by a voucher that settled meanwhile.
  const consumed = await repo.highestConsumedNonce(db, key);
  if (consumed !== undefined && nonce <= consumed) throw new VoucherChainStale();

  const wallet = await organizationWalletOf(db, organization.id);
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
