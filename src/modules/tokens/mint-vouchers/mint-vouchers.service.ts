import { type Address, getAddress, zeroAddress } from 'viem';
import type { MintVoucher } from '../../../chain/mint-voucher.ts';
import type { Executor } from '../../../db/executor.ts';
import type { MintVoucherRow } from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { hitRateLimit, type RateLimit } from '../../../http/rate-limit.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { findPaymentTokenBySymbol } from '../../platform/networks/networks.service.ts';
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
 * reserved; the holder learns the outcome through its VoucherHolder (the port voucherHolders):
 * redeemed (the item is MINTED to the minter and the holder's reservation of it ended first), or
 * ended (EXPIRED, or CANCELLED when another voucher consumed its nonce) so the holder releases or
 * passes on its hold. Issuing one: voucher-issue.service.ts; watching the chain:
 * voucher-watch.service.ts.
 *
 * One PENDING voucher per (contract, minter): the contract takes a minter's vouchers in nonce
 * order, so two vouchers signed with the same nonce would let either one be redeemed in place of
 * the other (a unique index; 409 INVALID_STATE).
 */

/** Per client address limit of the public list. */
export const LIMITS = {
  listPerIp: { name: 'mint-vouchers-list:ip', max: 120, windowSeconds: 60 },
} as const satisfies Record<string, RateLimit>;

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

function invalid(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path.slice(1)}: ${message}`, { fields: [{ path, message }] });
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
