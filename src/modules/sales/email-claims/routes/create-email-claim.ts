import { Type } from '@sinclair/typebox';
import { needs } from '../../../../access/access.ts';
import { principalOf } from '../../../../http/access.ts';
import type { RouteModule } from '../../../../http/types.ts';
import { errorResponses } from '../../../../lib/errors.ts';
import { CreateEmailClaimBody, EmailClaim } from '../email-claims.schemas.ts';
import { createEmailClaim } from '../email-claims.service.ts';

export const createEmailClaimRoute: RouteModule = (app, ctx) =>
  app.post(
    '/v1/email-claims',
    {
      config: { access: needs('email_claims:write') },
      schema: {
        operationId: 'createEmailClaim',
        tags: ['Email claims'],
        summary: 'Hold an item for an email address and mail it the claim link',
        description: [
          'The item must be locked (409 ITEM_NOT_LOCKED) and not reserved by a listing, request or other claim (409 ITEM_RESERVED);',
          'not minted (it is minted to the recipient on redeem; ERC1155: quantity within the supply left, else 422 INSUFFICIENT_SUPPLY; minted ERC721 not held: 409 ITEM_ALREADY_MINTED) or minted and held by the organization wallet (transferred on redeem). ERC721 quantity is 1.',
          'campaign_id must be a campaign of the organization (404). expiration: any future time (400 otherwise), default 7 days. tx_payer BUYER: the recipient mints the item with a voucher the redeem answers, so the contract must have MINT_VOUCHER (422 MISSING_MINT_CAPABILITY) and the item must not be minted (409 ITEM_ALREADY_MINTED).',
          'The item is reserved until the claim is redeemed, revoked or expires; a REDEEM_NFT mail goes to email with the link PUBLIC_BASE_URL/claim?token=… (the token is stored only as a hash). mail_status follows its delivery.',
        ].join(' '),
        body: CreateEmailClaimBody,
        response: { 201: Type.Ref(EmailClaim), ...errorResponses(400, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const created = await ctx.db
        .transaction()
        .execute((tx) => createEmailClaim(tx, ctx, principalOf(request), request.body));
      return reply.code(201).send(created);
    },
  );
