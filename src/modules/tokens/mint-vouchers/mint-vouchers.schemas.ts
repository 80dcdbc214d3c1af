import { type Static, Type } from '@sinclair/typebox';
import { listQueryProperties, Page } from '../../../http/pagination.ts';
import { DateTime, EthAddress, Uint256, Uuid } from '../../../http/schemas.ts';

/** Mint vouchers (docs/api.md: the MINT_VOUCHER data of a purchase intent, BUYER email claims). */

export const MintVoucherFields = Type.Object(
  {
    net_recipient: {
      ...EthAddress,
      description: "Receives price - initial_recipient_amount (the seller's payout address)",
    },
    initial_recipient: { ...EthAddress, description: 'Receives the platform fee (PLATFORM_FEE_ADDRESS)' },
    initial_recipient_amount: { ...Uint256, description: 'The platform fee, in currency base units' },
    quantity: Uint256,
    nonce: { ...Uint256, description: "The contract's nonces(minter) the voucher was signed for" },
    expiry: { ...Uint256, description: 'Unix seconds; the contract refuses the voucher after it' },
    price: { ...Uint256, description: 'Total paid for quantity, fee included, in currency base units' },
    token_id: { ...Uint256, description: '0: the contract assigns the next id' },
    currency: { ...EthAddress, description: 'The ERC-20 paid, or the zero address for the native coin' },
  },
  { additionalProperties: false },
);

/**
 * What a minter passes to the contract's mintWithVoucher((minter, tokenId, quantity, price,
 * currency, netRecipient, feeRecipient, feeAmount, nonce, expiry), signature).
 */
export const MintVoucherData = Type.Object(
  {
    contract: EthAddress,
    minter: { ...EthAddress, description: 'The only address that may redeem it; it receives the token' },
    network_id: Type.Integer(),
    signature: Type.String({
      pattern: '^0x[0-9a-f]+$',
      description: "The organization wallet's EIP-712 signature",
    }),
    voucher: MintVoucherFields,
  },
  { title: 'MintVoucherData', additionalProperties: false },
);
export type MintVoucherData = Static<typeof MintVoucherData>;

export const PublicMintVoucher = Type.Object(
  {
    id: Uuid,
    ...MintVoucherData.properties,
    created_at: DateTime,
  },
  { title: 'PublicMintVoucher', additionalProperties: false },
);
export type PublicMintVoucher = Static<typeof PublicMintVoucher>;

export const PublicMintVoucherPage = Page(PublicMintVoucher, 'PublicMintVoucherPage');

export const PublicMintVouchersParams = Type.Object(
  { eth_address: { ...EthAddress, description: 'The minter' } },
  { additionalProperties: false },
);

export const PublicMintVouchersQuery = Type.Object(
  {
    ...listQueryProperties('standard'),
    contract_address: Type.Optional(EthAddress),
    network_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  },
  { additionalProperties: false },
);
export type PublicMintVouchersQuery = Static<typeof PublicMintVouchersQuery>;
