import {
  type Address,
  type Hex,
  type LocalAccount,
  parseAbi,
  parseAbiItem,
  type TypedDataDomain,
} from 'viem';

/**
 * Mint vouchers of SignatureERC721 (contracts/src/SignatureERC721.sol): EIP-712 typed data signed
 * by a key holding the contract's VOUCHER_SIGNER_ROLE and redeemed by `minter` with
 * `mintWithVoucher(voucher, signature)`. The domain binds the voucher to one contract on one chain.
 */
export interface MintVoucher {
  /** The only address that may redeem the voucher; it receives the tokens. */
  minter: Address;
  /** 0 = `quantity` next sequential ids; otherwise exactly this id, with `quantity` 1. */
  tokenId: bigint;
  quantity: bigint;
  /** Total price, in `currency` base units, including `feeAmount`. */
  price: bigint;
  /** address(0) = the chain's native coin; otherwise an ERC-20 the minter has approved. */
  currency: Address;
  /** Receives `price - feeAmount` (the seller's payout address). */
  netRecipient: Address;
  /** Receives `feeAmount` (the platform fee). */
  feeRecipient: Address;
  feeAmount: bigint;
  /** Must equal the contract's `nonces(minter)`; redeeming increments it. */
  nonce: bigint;
  /** Unix seconds; valid while the block timestamp is at most this. */
  expiry: bigint;
}

export const MINT_VOUCHER_DOMAIN_NAME = 'SignatureERC721';
export const MINT_VOUCHER_DOMAIN_VERSION = '1';

export const mintVoucherTypes = {
  MintVoucher: [
    { name: 'minter', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'quantity', type: 'uint256' },
    { name: 'price', type: 'uint256' },
    { name: 'currency', type: 'address' },
    { name: 'netRecipient', type: 'address' },
    { name: 'feeRecipient', type: 'address' },
    { name: 'feeAmount', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'expiry', type: 'uint256' },
  ],
} as const;

export function mintVoucherDomain(chainId: number, verifyingContract: Address): TypedDataDomain {
  return { name: MINT_VOUCHER_DOMAIN_NAME, version: MINT_VOUCHER_DOMAIN_VERSION, chainId, verifyingContract };
}

export function signMintVoucher(
  signer: LocalAccount,
  target: { chainId: number; contract: Address },
  voucher: MintVoucher,
): Promise<Hex> {
  return signer.signTypedData({
    domain: mintVoucherDomain(target.chainId, target.contract),
    types: mintVoucherTypes,
    primaryType: 'MintVoucher',
    message: voucher,
  });
}

/** What the service reads of a MINT_VOUCHER contract: a minter's next nonce and who may sign. */
export const VOUCHER_ABI = parseAbi([
  'function nonces(address owner) view returns (uint256)',
  'function hasRole(bytes32 role, address account) view returns (bool)',
  'function VOUCHER_SIGNER_ROLE() view returns (bytes32)',
]);

/** Emitted by `mintWithVoucher`: the watcher matches a voucher by minter, nonce and digest. */
export const VOUCHER_REDEEMED_EVENT = parseAbiItem(
  'event VoucherRedeemed(address indexed minter, uint256 indexed nonce, bytes32 indexed digest, uint256 firstTokenId, uint256 quantity)',
);
