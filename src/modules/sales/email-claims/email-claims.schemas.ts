import { type Static, Type } from '@sinclair/typebox';
import { MINT_VOUCHER_STATUSES, TX_PAYERS } from '../../../db/enums.ts';
import { listQueryProperties } from '../../../http/pagination.ts';
import { DateTime, Email, EthAddress, Nullable, StringEnum, Uint256, Uuid } from '../../../http/schemas.ts';
import { MintVoucherData } from '../../tokens/mint-vouchers/mint-vouchers.schemas.ts';

/** Email claims (docs/api.md#email-claims). */

export const TxPayer = StringEnum(TX_PAYERS, {
  description:
    "SELLER: the organization's wallet mints or transfers on redeem; BUYER: the recipient mints with a voucher the redeem answers (an unminted item of a MINT_VOUCHER contract), paying only the gas",
});

export const MailStatus = StringEnum(['PENDING', 'SENT', 'FAILED'] as const, {
  description:
    'Delivery of the latest REDEEM_NFT mail: PENDING until sent (retried with backoff), then SENT or FAILED',
});

export const EmailClaim = Type.Object(
  {
    id: Uuid,
    email: { ...Email, description: 'Recipient address' },
    item_id: Uuid,
    collection_id: Uuid,
    quantity: Type.Integer({ minimum: 1, description: 'Units (ERC721: 1)' }),
    token_id: Nullable({ ...Uint256, description: 'Null until minted for EXTERNAL token ids' }),
    voucher_id: Nullable(Uuid),
    tx_payer: TxPayer,
    type: Nullable(Type.String({ description: 'Free label given at creation' })),
    tx_hash: Nullable(Type.String({ description: 'Hash of the delivery transaction once broadcast' })),
    active: Type.Boolean({ description: 'False once revoked or past expiration' }),
    claimed: Type.Boolean(),
    claimed_at: Nullable(DateTime),
    created_at: DateTime,
    expiration: DateTime,
    last_pin_code_email_sent_at: Nullable(DateTime),
    campaign_id: Nullable(Uuid),
    mail_status: Nullable(MailStatus),
    mail_error: Nullable(Type.String({ description: "The latest delivery error of the claim's mail" })),
  },
  { $id: 'EmailClaim', title: 'EmailClaim' },
);
export type EmailClaim = Static<typeof EmailClaim>;

export const CreateEmailClaimBody = Type.Object(
  {
    email: Email,
    item_id: Uuid,
    quantity: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Units; ERC721: 1' }),
    tx_payer: Type.Optional(Nullable(TxPayer)),
    type: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    campaign_id: Type.Optional(Nullable(Uuid)),
    expiration: Type.Optional(
      Nullable({ ...DateTime, description: 'Any future time; default 7 days from now' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateEmailClaimBody = Static<typeof CreateEmailClaimBody>;

export const ResendEmailClaimBody = Type.Object(
  { email: Type.Optional(Nullable({ ...Email, description: 'A new recipient address' })) },
  { additionalProperties: false },
);
export type ResendEmailClaimBody = Static<typeof ResendEmailClaimBody>;

export const EmailClaimOrder = StringEnum(['CREATED_AT', 'EXPIRATION', 'CLAIMED_AT'] as const);
export type EmailClaimOrder = Static<typeof EmailClaimOrder>;

export const ListEmailClaimsQuery = Type.Object(
  {
    ...listQueryProperties('medium'),
    collection_ids: Type.Optional(Type.Array(Uuid, { maxItems: 100 })),
    item_ids: Type.Optional(Type.Array(Uuid, { maxItems: 100 })),
    token_ids: Type.Optional(Type.Array(Uint256, { maxItems: 100 })),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    claimed: Type.Optional(Type.Boolean()),
    active: Type.Optional(Type.Boolean()),
    order_by: Type.Optional(EmailClaimOrder),
  },
  { additionalProperties: false },
);
export type ListEmailClaimsQuery = Static<typeof ListEmailClaimsQuery>;

export const EmailClaimParams = Type.Object({ claim_id: Uuid }, { additionalProperties: false });

// ---- Public (the claim page) ----

export const ClaimTokenParams = Type.Object(
  { claim_token: Type.String({ minLength: 1, maxLength: 128, description: "The link's token" }) },
  { additionalProperties: false },
);

export const PublicClaimStatus = StringEnum(['ACTIVE', 'CLAIMED', 'EXPIRED', 'REVOKED'] as const);
export type PublicClaimStatus = Static<typeof PublicClaimStatus>;

export const DeliveryState = StringEnum(['PENDING', 'SUBMITTED', 'COMPLETED', 'FAILED'] as const, {
  description:
    'PENDING until broadcast, SUBMITTED once broadcast, COMPLETED when the token arrived, FAILED when the transaction reverted or was cancelled (the claim is then ACTIVE again and may be redeemed anew)',
});

export const ClaimVoucher = Type.Object(
  {
    id: Uuid,
    ...MintVoucherData.properties,
    status: StringEnum(MINT_VOUCHER_STATUSES, {
      description:
        'PENDING until the recipient mints with it (REDEEMED once seen on chain), EXPIRED past its expiry, CANCELLED when its nonce went to another voucher',
    }),
    tx_hash: Nullable(Type.String({ description: 'The redemption transaction, once REDEEMED' })),
  },
  {
    title: 'ClaimVoucher',
    description:
      "tx_payer BUYER: the recipient's mint voucher; the recipient calls the contract's mintWithVoucher with it (price 0: only gas is paid)",
  },
);
export type ClaimVoucher = Static<typeof ClaimVoucher>;

export const PublicEmailClaim = Type.Object(
  {
    status: PublicClaimStatus,
    expiration: DateTime,
    tx_payer: TxPayer,
    item: Type.Object({
      name: Nullable(Type.String()),
      image: Nullable(Type.String()),
      collection_name: Type.String(),
      token_id: Nullable(Uint256),
    }),
    email_hint: Type.String({ description: 'The recipient address, masked: j***@example.com' }),
    pin: Nullable(
      Type.Object({
        sent_at: DateTime,
        expires_at: DateTime,
        tries_left: Type.Integer({ minimum: 0 }),
      }),
    ),
    delivery: Nullable(
      Type.Object({
        transaction_id: Uuid,
        state: DeliveryState,
        tx_hash: Nullable(Type.String()),
        to_address: EthAddress,
        token_id: Nullable(Uint256),
        network_id: Type.Integer(),
        contract_address: EthAddress,
      }),
    ),
    voucher: Nullable(ClaimVoucher),
  },
  { title: 'PublicEmailClaim' },
);
export type PublicEmailClaim = Static<typeof PublicEmailClaim>;

export const PinSent = Type.Object(
  {
    sent_at: DateTime,
    expires_at: DateTime,
    tries_left: Type.Integer({ minimum: 0 }),
  },
  { title: 'PinSent' },
);
export type PinSent = Static<typeof PinSent>;

export const RedeemEmailClaimBody = Type.Object(
  {
    address: { ...EthAddress, description: `Receives the token. ${EthAddress.description}` },
    pin: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit PIN mailed by verify' }),
  },
  { additionalProperties: false },
);
export type RedeemEmailClaimBody = Static<typeof RedeemEmailClaimBody>;

export const RedeemResult = Type.Object(
  {
    status: Type.Literal('CLAIMED'),
    transaction_id: Nullable(Uuid),
    voucher: Nullable(ClaimVoucher),
  },
  { title: 'RedeemResult' },
);
export type RedeemResult = Static<typeof RedeemResult>;
