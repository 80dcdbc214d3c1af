import { getAddress, type Hex } from 'viem';
import type { MintVoucherData } from '../../src/modules/tokens/mint-vouchers/mint-vouchers.schemas.ts';

/** A signed voucher as the service answers it, in the order `mintWithVoucher` takes its arguments. */
export function mintWithVoucherArgs(data: Pick<MintVoucherData, 'minter' | 'signature' | 'voucher'>) {
  return [
    {
      minter: getAddress(data.minter),
      tokenId: BigInt(data.voucher.token_id),
      quantity: BigInt(data.voucher.quantity),
      price: BigInt(data.voucher.price),
      currency: getAddress(data.voucher.currency),
      netRecipient: getAddress(data.voucher.net_recipient),
      feeRecipient: getAddress(data.voucher.initial_recipient),
      feeAmount: BigInt(data.voucher.initial_recipient_amount),
      nonce: BigInt(data.voucher.nonce),
      expiry: BigInt(data.voucher.expiry),
    },
    data.signature as Hex,
  ] as const;
}
