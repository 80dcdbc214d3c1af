import { randomInt, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type Address, zeroAddress } from 'viem';
import type { Deps } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { Database, EmailClaimRow, MintVoucherRow } from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import { hitRateLimit } from '../../../http/rate-limit.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { sha256 } from '../../../lib/secrets.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import { activeHolderOf, lockItems } from '../../catalog/items/item-flows.service.ts';
import { findItem } from '../../catalog/items/items.service.ts';
import { queueMail } from '../../platform/mail/mail.service.ts';
import { findVoucher } from '../../tokens/mint-vouchers/mint-vouchers.service.ts';
import {
  issueVoucher,
  type VoucherChain,
  VoucherChainStale,
  withVoucherChain,
} from '../../tokens/mint-vouchers/voucher-issue.service.ts';
import {
  checkedRecipient,
  contractForFlow,
  startTokenFlow,
} from '../../tokens/token-flows/token-flows.service.ts';
import { LIMITS, MAX_PIN_TRIES, PIN_MAIL_INTERVAL_MS, PIN_TTL_MINUTES } from './email-claim-rules.ts';
import { activePin, claimVoucherOf, emitClaimEvent, itemName, toPublicClaim } from './email-claim-views.ts';
import * as repo from './email-claims.repository.ts';
import type {
  PinSent,
  PublicEmailClaim,
  RedeemEmailClaimBody,
  RedeemResult,
} from './email-claims.schemas.ts';
import { assertClaimable, deliveryFlow, voucherContract } from './email-claims.service.ts';

/**
 * What the holder of a claim's link does (the claim page): reads the claim, asks for a PIN by
 * mail, and redeems it with the PIN to an address (a mint or transfer, or a mint voucher when the
 * buyer pays the gas).
 */

async function publicViewOf(db: Executor, token: string): Promise<repo.EmailClaimView> {
  const view = await repo.findClaimViewByTokenHash(db, sha256(token));
  if (!view)
    throw new ApiError('NOT_FOUND', 'no claim has this link (it may have been replaced by a newer one)');
  return view;
}

export async function getPublicEmailClaim(
  db: Executor,
  token: string,
  ip: string,
): Promise<PublicEmailClaim> {
  await hitRateLimit(db, LIMITS.readPerIp, ip);
  const view = await publicViewOf(db, token);
  const voucher = view.voucher_id === null ? undefined : await findVoucher(db, view.voucher_id);
  return toPublicClaim(view, voucher);
}

async function lockByToken(db: Tx, token: string): Promise<EmailClaimRow> {
  const claim = await repo.lockClaimByTokenHash(db, sha256(token));
  if (!claim)
    throw new ApiError('NOT_FOUND', 'no claim has this link (it may have been replaced by a newer one)');
  return claim;
}

/**
 * The PIN is 6 random digits; its digest is bound to the claim. A digest without a key is enough:
 * a PIN lives 15 minutes, five tries, and redeeming needs the link's secret, which the database
 * does not hold.
 */
function pinDigest(claimId: string, pin: string): Buffer {
  return sha256(`${claimId}:${pin}`);
}

/**
 * Verify: mails a new 6-digit PIN (CLAIM_PINCODE) valid 15 minutes, replacing any earlier one and
 * its tries; at most one mail a minute per claim (429 with Retry-After).
 */
export async function sendClaimPin(db: Executor, token: string, ip: string): Promise<PinSent> {
  await hitRateLimit(db, LIMITS.verifyPerIp, ip);
  return db.transaction().execute(async (tx) => {
    const claim = await lockByToken(tx, token);
    assertClaimable(claim, 'verified');
    const now = new Date();
    const last = claim.last_pin_code_email_sent_at;
    if (last !== null && now.getTime() - last.getTime() < PIN_MAIL_INTERVAL_MS) {
      const seconds = Math.ceil((last.getTime() + PIN_MAIL_INTERVAL_MS - now.getTime()) / 1000);
      throw new ApiError('RATE_LIMITED', `a PIN was mailed less than a minute ago; retry in ${seconds} s`, {
        retryAfterSeconds: Math.max(1, seconds),
      });
    }
    const pin = randomInt(0, 1_000_000).toString().padStart(6, '0');
    const expiresAt = new Date(now.getTime() + PIN_TTL_MINUTES * 60_000);
    await repo.updateClaim(tx, claim.id, {
      pin_hash: pinDigest(claim.id, pin),
      pin_expires_at: expiresAt,
      pin_failed_attempts: 0,
      last_pin_code_email_sent_at: now,
    });
    const item = await findItem(tx, claim.item_id);
    await queueMail(tx, {
      organizationId: claim.organization_id,
      campaignId: claim.campaign_id,
      templateType: 'CLAIM_PINCODE',
      to: claim.email,
      variables: {
        pin_code: pin,
        item_name: item ? itemName(item) : '',
        expires_in_minutes: String(PIN_TTL_MINUTES),
      },
    });
    return { sent_at: iso(now), expires_at: iso(expiresAt), tries_left: MAX_PIN_TRIES };
  });
}

type RedeemOutcome =
  | { kind: 'wrong_pin'; triesLeft: number }
  | { kind: 'claimed'; transactionId: string }
  | { kind: 'voucher'; voucher: MintVoucherRow };

/**
 * Redeem: state first (claimed, revoked, expired: 409), then the PIN (none usable: 401 asking for
 * a new one; wrong: 401 with the tries left, the 5th burns it; compared in constant time), then,
 * in one database transaction, the claim marked claimed for the checked address and the mint or
 * transfer started through the token-flow pipeline with the claim's reservation handed to its
 * record. The claim row is locked first, so of concurrent redeems exactly one starts a flow.
 * A wrong try is committed before the 401 (it must count); anything else that fails rolls back.
 * A claim whose recipient pays the gas is given a mint voucher, whose chain reads are made before
 * the claim is locked (withVoucherChain).
 */
export async function redeemEmailClaim(
  db: Kysely<Database>,
  deps: Deps,
  token: string,
  body: RedeemEmailClaimBody,
  ip: string,
): Promise<RedeemResult> {
  await hitRateLimit(db, LIMITS.redeemPerIp, ip);
  const address = checkedAddress(body.address, '/address');
  const seen = await repo.findClaimViewByTokenHash(db, sha256(token));
  const outcome =
    seen?.tx_payer === 'BUYER'
      ? await withVoucherChain(
          db,
          deps,
          { organizationId: seen.organization_id, collectionId: seen.collection_id, minter: address },
          (chain) => redeemLocked(db, deps, token, body, address, chain),
        )
      : await redeemLocked(db, deps, token, body, address, undefined);
  if (outcome.kind === 'wrong_pin')
    throw new ApiError(
      'INVALID_CREDENTIALS',
      outcome.triesLeft > 0
        ? `the PIN is wrong: ${outcome.triesLeft} ${outcome.triesLeft === 1 ? 'try' : 'tries'} left`
        : 'the PIN is wrong and no tries are left: request a new one',
    );
  if (outcome.kind === 'voucher')
    return { status: 'CLAIMED', transaction_id: null, voucher: claimVoucherOf(outcome.voucher) };
  return { status: 'CLAIMED', transaction_id: outcome.transactionId, voucher: null };
}

/** The redeem's database transaction, the claim locked first (see redeemEmailClaim). */
function redeemLocked(
  db: Kysely<Database>,
  deps: Deps,
  token: string,
  body: RedeemEmailClaimBody,
  address: Address,
  chain: VoucherChain | undefined,
): Promise<RedeemOutcome> {
  return db.transaction().execute(async (tx): Promise<RedeemOutcome> => {
    const claim = await lockByToken(tx, token);
    assertClaimable(claim, 'redeemed');
    const pin = activePin(claim);
    if (pin === undefined)
      throw new ApiError(
        'INVALID_CREDENTIALS',
        'no PIN can be used for this claim (none was requested, it expired, or wrong tries burned it): request a new one',
      );
    const given = pinDigest(claim.id, body.pin);
    if (!timingSafeEqual(given, claim.pin_hash!)) {
      const attempts = claim.pin_failed_attempts + 1;
      const burned = attempts >= MAX_PIN_TRIES;
      await repo.updateClaim(tx, claim.id, {
        pin_failed_attempts: attempts,
        ...(burned && { pin_hash: null, pin_expires_at: null }),
      });
      return { kind: 'wrong_pin', triesLeft: MAX_PIN_TRIES - attempts };
    }
    const collection = await findCollection(tx, claim.collection_id);
    const [item] = await lockItems(tx, [claim.item_id]);
    if (!collection || !item) throw new Error(`email claim ${claim.id} lost its item or collection`);
    if (claim.tx_payer === 'BUYER') {
      if (!chain) throw new VoucherChainStale();
      const contract = voucherContract(collection);
      const minter = checkedRecipient(address, contract, '/address');
      // The seller gives the item away: price 0, the recipient pays only the gas of the mint.
      const issued = await issueVoucher(
        tx,
        deps,
        {
          organizationId: claim.organization_id,
          collectionId: collection.id,
          itemId: item.id,
          minter,
          quantity: BigInt(claim.quantity),
          price: 0n,
          currency: zeroAddress,
          expiry: claim.expiration,
          holder: { kind: 'EMAIL_CLAIM', id: claim.id },
        },
        chain,
      );
      await repo.updateClaim(tx, claim.id, {
        claimed_at: new Date(),
        to_address: minter,
        voucher_id: issued.id,
        pin_hash: null,
        pin_expires_at: null,
        pin_failed_attempts: 0,
      });
      const voucher = await findVoucher(tx, issued.id);
      return { kind: 'voucher', voucher: voucher! };
    }
    // The units sold, never more: a covered claim's quantity is its intent's.
    const quantity = BigInt(claim.quantity);
    const flow = deliveryFlow(item, quantity);
    const contract = contractForFlow(collection, flow);
    const to = checkedRecipient(address, contract, '/address');
    if (claim.covered_by !== null && (await activeHolderOf(tx, item.id)) !== claim.covered_by)
      throw new ApiError(
        'INVALID_STATE',
        `the listing that sold this claim's units no longer holds item ${item.id}`,
      );
    await repo.updateClaim(tx, claim.id, {
      claimed_at: new Date(),
      to_address: to,
      pin_hash: null,
      pin_expires_at: null,
      pin_failed_attempts: 0,
    });
    const [record] = await startTokenFlow(tx, deps, {
      flow,
      collection,
      items: [item],
      quantity,
      to,
      ...(claim.covered_by === null ? { reservedBy: claim.id } : { coveredBy: claim.covered_by }),
      owner: { kind: 'EMAIL_CLAIM', id: claim.id },
    });
    if (!record) throw new Error(`email claim ${claim.id}: the token flow started no record`);
    await repo.updateClaim(tx, claim.id, { transaction_id: record.transaction_id });
    await emitClaimEvent(tx, claim.id, 'email_claim.claimed');
    return { kind: 'claimed', transactionId: record.transaction_id };
  });
}
