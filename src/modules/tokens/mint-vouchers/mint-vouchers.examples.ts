import type { OperationExample } from '../../../http/openapi-examples.ts';
import { address, page } from '../../../http/openapi-story.ts';

/** Mint vouchers (the buyer mints with the organization wallet's signature). */
export const mintVouchersExamples: Readonly<Record<string, OperationExample>> = {
  listPublicMintVouchers: {
    params: { eth_address: address.collector },
    response: page([
      {
        id: '01a20611-5b2c-7e0d-9a41-2f6c8e3d7b15',
        contract: address.contract,
        minter: address.collector,
        network_id: 31337,
        signature:
          '0x5f1c3a7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a51b',
        voucher: {
          net_recipient: address.payout,
          initial_recipient: address.wallet,
          initial_recipient_amount: '2500000000000000',
          quantity: '1',
          nonce: '0',
          expiry: '1795860000',
          price: '50000000000000000',
          token_id: '2',
          currency: '0x0000000000000000000000000000000000000000',
        },
        created_at: '2026-11-22T10:05:00.000Z',
      },
    ]),
  },
};
