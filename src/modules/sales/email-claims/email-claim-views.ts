import { getAddress } from 'viem';
import type { Executor } from '../../../db/executor.ts';
import type { EmailClaimRow, ItemRow, MintVoucherRow, OutboxStatus } from '../../../db/schema.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { itemMedia } from '../../catalog/items/items.service.ts';
import { emitEvent } from '../../platform/webhooks/webhook-events.service.ts';
import { voucherDataOf } from '../../tokens/mint-vouchers/mint-vouchers.service.ts';
import { broadcastHash, requestState } from '../../tokens/token-flows/token-flows.service.ts';
import { MAX_PIN_TRIES } from './email-claim-rules.ts';
import * as repo from './email-claims.repository.ts';
import type {
  ClaimVoucher,
  EmailClaim,
  PublicClaimStatus,
  PublicEmailClaim,
} from './email-claims.schemas.ts';

/**
 * What an email claim shows: to its organization (the admin API) and to the holder of its link
 * (the claim page), and its events.
 */

function mailStatusOf(status: OutboxStatus | null): EmailClaim['mail_status'] {
  if (status === null) return null;
  return status === 'SENDING' ? 'PENDING' : status;
}

/** Active: not revoked, and either claimed or before its expiration (the sweep may lag a minute). */
function isActive(claim: EmailClaimRow, now = new Date()): boolean {
  return claim.active && (claim.claimed_at !== null || claim.expiration > now);
}

export function toEmailClaim(view: repo.EmailClaimView): EmailClaim {
  const txHash =
    view.transaction_state === null
      ? view.voucher_tx_hash
      : broadcastHash(view.transaction_state, view.tx_hash);
  return {
    id: view.id,
    email: view.email,
    item_id: view.item_id,
    collection_id: view.collection_id,
    quantity: Number(view.quantity),
    token_id: view.token_id,
    voucher_id: view.voucher_id,
    tx_payer: view.tx_payer,
    type: view.type,
    tx_hash: txHash,
    active: isActive(view),
    claimed: view.claimed_at !== null,
    claimed_at: iso(view.claimed_at),
    created_at: iso(view.created_at),
    expiration: iso(view.expiration),
    last_pin_code_email_sent_at: iso(view.last_pin_code_email_sent_at),
    campaign_id: view.campaign_id,
    mail_status: mailStatusOf(view.mail_status),
    mail_error: view.mail_error,
  };
}

export function statusOf(claim: EmailClaimRow, now = new Date()): PublicClaimStatus {
  if (claim.claimed_at !== null) return 'CLAIMED';
  if (!claim.active) return claim.deactivation_reason ?? 'REVOKED';
  return claim.expiration <= now ? 'EXPIRED' : 'ACTIVE';
}

/** `jane@example.com` → `j***@example.com`: enough for the recipient to recognise it. */
export function emailHint(email: string): string {
  const at = email.lastIndexOf('@');
  const local = at > 0 ? email.slice(0, at) : email;
  return `${local.slice(0, 1)}***${at > 0 ? email.slice(at) : ''}`;
}

/** The PIN that may still be tried, if any. */
export function activePin(
  claim: EmailClaimRow,
  now = new Date(),
): { expiresAt: Date; triesLeft: number } | undefined {
  if (claim.pin_hash === null || claim.pin_expires_at === null || claim.pin_expires_at <= now)
    return undefined;
  const triesLeft = MAX_PIN_TRIES - claim.pin_failed_attempts;
  return triesLeft > 0 ? { expiresAt: claim.pin_expires_at, triesLeft } : undefined;
}

/** A BUYER claim's voucher as the claim page shows it: what to mint with, and whether it was. */
export function claimVoucherOf(voucher: MintVoucherRow): ClaimVoucher {
  return {
    id: voucher.id,
    ...voucherDataOf(voucher),
    status: voucher.status,
    tx_hash: voucher.redeemed_tx_hash,
  };
}

export function toPublicClaim(
  view: repo.EmailClaimView,
  voucher: MintVoucherRow | undefined,
): PublicEmailClaim {
  const media = itemMedia(view.attributes);
  const name = view.attributes.name;
  const pin = activePin(view);
  const delivery =
    view.transaction_id !== null &&
    view.transaction_state !== null &&
    view.to_address !== null &&
    view.contract_address !== null &&
    view.network_id !== null
      ? {
          transaction_id: view.transaction_id,
          state: requestState(view.request_state ?? 'PENDING', view.transaction_state),
          tx_hash: broadcastHash(view.transaction_state, view.tx_hash),
          to_address: getAddress(view.to_address),
          token_id: view.token_id,
          network_id: view.network_id,
          contract_address: getAddress(view.contract_address),
        }
      : null;
  return {
    status: statusOf(view),
    expiration: iso(view.expiration),
    tx_payer: view.tx_payer,
    item: {
      name: typeof name === 'string' ? name : null,
      image: media.image,
      collection_name: view.collection_name,
      token_id: view.token_id,
    },
    email_hint: emailHint(view.email),
    pin:
      pin === undefined || view.last_pin_code_email_sent_at === null
        ? null
        : {
            sent_at: iso(view.last_pin_code_email_sent_at),
            expires_at: iso(pin.expiresAt),
            tries_left: pin.triesLeft,
          },
    delivery,
    voucher: voucher === undefined ? null : claimVoucherOf(voucher),
  };
}

export async function getView(db: Executor, id: string): Promise<repo.EmailClaimView> {
  const view = await repo.findClaimView(db, id);
  if (!view) throw new ApiError('NOT_FOUND', 'email claim not found');
  return view;
}

/** email_claim.created, .claimed or .expired, in the transaction of the change, with the claim as the API shows it. */
export async function emitClaimEvent(
  db: Executor,
  id: string,
  type: 'email_claim.created' | 'email_claim.claimed' | 'email_claim.expired',
): Promise<EmailClaim> {
  const view = await getView(db, id);
  const claim = toEmailClaim(view);
  await emitEvent(db, { organizationId: view.organization_id, type, resourceId: id, data: claim });
  return claim;
}

export function itemName(item: ItemRow): string {
  const name = item.attributes.name;
  return typeof name === 'string' ? name : `#${item.token_id ?? item.id}`;
}
