import { PUBLIC } from '../../../../access/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import {
  PublicMintVoucherPage,
  PublicMintVouchersParams,
  PublicMintVouchersQuery,
} from '../mint-vouchers.schemas.ts';
import { listPublicMintVouchers } from '../mint-vouchers.service.ts';

export const listPublicMintVouchersRoute: RouteModule = (app, ctx) =>
  app.get(
    '/v1/public/mint-vouchers/:eth_address',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'listPublicMintVouchers',
        tags: ['Public'],
        summary: "A minter's pending mint vouchers",
        description: [
          'The vouchers signed for eth_address that are still PENDING and not past their expiry, oldest first, optionally of one contract (contract_address) on one network (network_id).',
          "Each is what the contract's mintWithVoucher(voucher, signature) takes: the minter (only it may redeem) pays price in currency (the zero address: the native coin; else an ERC-20 it has approved to the contract), split between net_recipient and initial_recipient (initial_recipient_amount).",
          'A minter has at most one pending voucher per contract. Rate limited per client address.',
        ].join(' '),
        params: PublicMintVouchersParams,
        querystring: PublicMintVouchersQuery,
        response: { 200: PublicMintVoucherPage, ...errorResponses(400, 429) },
      },
    },
    async (request) => listPublicMintVouchers(ctx.db, request.params.eth_address, request.query, request.ip),
  );
