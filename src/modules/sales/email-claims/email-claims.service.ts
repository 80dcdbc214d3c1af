import { randomInt, timingSafeEqual } from 'node:crypto';
import { getAddress, zeroAddress } from 'viem';
import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import type { Deps, TokenFlowOwner, VoucherHolder } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type {
  CollectionRow,
  EmailClaimRow,
  ItemRow,
  MintVoucherRow,
  OutboxStatus,
} from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { hitRateLimit, type RateLimit } from '../../../http/rate-limit.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import { randomToken, uuidv7 } from '../../../lib/ids.ts';
import { sha256 } from '../../../lib/secrets.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import {
  activeHolderOf,
  deployedContractOf,
  type ItemFlow,
  lockFlowItems,
  lockItems,
  moveReservations,
  releaseReservations,
  reserveItems,
} from '../../catalog/items/item-flows.service.ts';
import { collectionOfSelection } from '../../catalog/items/item-selection.ts';
import { findItem, itemMedia } from '../../catalog/items/items.service.ts';
import { queueMail } from '../../platform/mail/mail.service.ts';
import { findOrganization } from '../../platform/organizations/organizations.service.ts';
import { emitEvent } from '../../platform/webhooks/webhook-events.service.ts';
import {
  findVoucher,
  issueVoucher,
  voucherDataOf,
} from '../../tokens/mint-vouchers/mint-vouchers.service.ts';
import {
  broadcastHash,
  checkedQuantity,
  checkedRecipient,
  contractForFlow,
  requestState,
  startTokenFlow,
} from '../../tokens/token-flows/token-flows.service.ts';
import { endCoveredUnits } from '../listings/listings.service.ts';
import * as repo from './email-claims.repository.ts';
import type {
  ClaimVoucher,
  CreateEmailClaimBody,
  EmailClaim,
  ListEmailClaimsQuery,
  PinSent,
  PublicClaimStatus,
  PublicEmailClaim,
  RedeemEmailClaimBody,
  RedeemResult,
  ResendEmailClaimBody,
} from './email-claims.schemas.ts';

/**
 * Email claims (docs/api.md#email-claims): an item held for an email address until its recipient redeems it
 * from the mailed link with a mailed PIN. The claim reserves the item (reservation kind
 * EMAIL_CLAIM, ending at the claim's expiration); a redeem hands that reservation to a mint or
 * transfer record of the token-flow pipeline (`reservedBy`), so the item is never free between
 * the claim and its delivery.
 *
 * Delivery outcome (settleEmailClaimDelivery): success queues CLAIMED_NFT once; a reverted or
 * cancelled delivery reopens the claim (unclaimed, active, the reservation back on the claim, a
 * new PIN needed) so the recipient may redeem again, or, when the claim's expiration has passed
 * meanwhile, deactivates it as EXPIRED and the item is free. Either way the item is minted at
 * most once and never left reserved by nobody.
 *
 * An ERC-1155 sale's claim is covered by its listing instead (`covered_by`): the listing's
 * reservation, which keeps the item for its other buyers, holds the claim's units, and the claim
 * has none of its own. Its redeem mints or transfers exactly the units sold (the claim's quantity,
 * the intent's) under that reservation (`coveredBy`), so they are not checked against the item's
 * supply a second time: the listing counted them when it reserved the item. A covered claim that
 * expires or is revoked gives its units back to the listing's reservation: not for sale again
 * (they stay sold to the intent, which is what quantity_remaining and max_per_user count), and the
 * item's once the listing has ended (endCoveredUnits). An ended listing (cancelled, sold out)
 * keeps the item for the claims it covers until each is delivered or ends.
 */

export const DEFAULT_CLAIM_TTL_MS = 7 * 24 * 3600 * 1000;
export const PIN_TTL_MINUTES = 15;
/** At most one PIN mail a minute per claim (docs/api.md#email-claims). */
export const PIN_MAIL_INTERVAL_MS = 60_000;
/** The 5th wrong try burns the PIN. */
export const MAX_PIN_TRIES = 5;

/** Per client address limits of the public routes, against guessing (docs/api.md#email-claims). */
export const LIMITS = {
  readPerIp: { name: 'claim-read:ip', max: 120, windowSeconds: 60 },
  verifyPerIp: { name: 'claim-verify:ip', max: 20, windowSeconds: 3600 },
  redeemPerIp: { name: 'claim-redeem:ip', max: 30, windowSeconds: 15 * 60 },
} as const satisfies Record<string, RateLimit>;

// ---- Views ----

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

function statusOf(claim: EmailClaimRow, now = new Date()): PublicClaimStatus {
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
function activePin(
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

function toPublicClaim(view: repo.EmailClaimView, voucher: MintVoucherRow | undefined): PublicEmailClaim {
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

async function getView(db: Executor, id: string): Promise<repo.EmailClaimView> {
  const view = await repo.findClaimView(db, id);
  if (!view) throw new ApiError('NOT_FOUND', 'email claim not found');
  return view;
}

/** email_claim.created, .claimed or .expired, in the transaction of the change, with the claim as the API shows it. */
async function emitClaimEvent(
  db: Executor,
  id: string,
  type: 'email_claim.created' | 'email_claim.claimed' | 'email_claim.expired',
): Promise<EmailClaim> {
  const view = await getView(db, id);
  const claim = toEmailClaim(view);
  await emitEvent(db, { organizationId: view.organization_id, type, resourceId: id, data: claim });
  return claim;
}

// ---- Admin ----

/**
 * How the item reaches the recipient: minted (not minted yet, or an ERC-1155 whose wallet stock
 * does not cover the quantity) or transferred from the organization's wallet (minted and held).
 * The claim's reservation keeps the item as it was, so create and redeem choose alike.
 */
function deliveryFlow(item: ItemRow, quantity: bigint): ItemFlow {
  return BigInt(item.minted_supply) > 0n && BigInt(item.held_supply) >= quantity ? 'TRANSFER' : 'MINT';
}

function itemName(item: ItemRow): string {
  const name = item.attributes.name;
  return typeof name === 'string' ? name : `#${item.token_id ?? item.id}`;
}

function claimUrl(deps: Deps, secret: string): string {
  return `${deps.config.http.publicBaseUrl}/claim?token=${encodeURIComponent(secret)}`;
}

/** Mails the link (REDEEM_NFT) and records it as the claim's latest mail. */
async function mailLink(
  db: Executor,
  deps: Deps,
  claim: { id: string; email: string; organization_id: string; campaign_id: string | null; expiration: Date },
  item: ItemRow,
  collection: CollectionRow,
  secret: string,
): Promise<void> {
  const organization = await findOrganization(db, claim.organization_id);
  const mailId = await queueMail(db, {
    organizationId: claim.organization_id,
    campaignId: claim.campaign_id,
    templateType: 'REDEEM_NFT',
    to: claim.email,
    variables: {
      claim_url: claimUrl(deps, secret),
      item_name: itemName(item),
      item_image: itemMedia(item.attributes).image ?? '',
      collection_name: collection.name,
      organization_name: organization?.name ?? '',
      expiration: claim.expiration.toISOString(),
    },
  });
  await repo.updateClaim(db, claim.id, { mail_outbox_id: mailId });
}

/**
 * Create (docs/api.md#email-claims), all or nothing in the caller's transaction: the item locked
 * and checked as its delivery flow requires (mint: locked, supply left, ERC1155 quantity within
 * it; transfer: minted and held by the organization's wallet; never reserved), the claim row, the
 * item's reservation until the expiration, and the REDEEM_NFT mail with the link's secret (stored
 * as its SHA-256 only).
 */
export async function createEmailClaim(
  db: Executor,
  deps: Deps,
  principal: Principal,
  body: CreateEmailClaimBody,
): Promise<EmailClaim> {
  const txPayer = body.tx_payer ?? 'SELLER';
  const now = new Date();
  const expiration =
    body.expiration == null ? new Date(now.getTime() + DEFAULT_CLAIM_TTL_MS) : new Date(body.expiration);
  if (expiration <= now)
    throw new ApiError('VALIDATION_FAILED', 'expiration must be in the future', {
      fields: [{ path: '/expiration', message: 'must be in the future' }],
    });
  const selection = { kind: 'items' as const, itemIds: [body.item_id] };
  const collection = await collectionOfSelection(db, principal, selection);
  const organizationId = collection.organization_id;
  if (body.campaign_id != null && !(await repo.campaignOfOrganization(db, body.campaign_id, organizationId)))
    throw new ApiError('NOT_FOUND', 'marketing campaign not found');
  const current = await findItem(db, body.item_id);
  if (!current) throw new ApiError('NOT_FOUND', 'item not found');
  const quantity = BigInt(body.quantity);
  const flow = txPayer === 'BUYER' ? 'MINT' : deliveryFlow(current, quantity);
  const contract = txPayer === 'BUYER' ? voucherContract(collection) : contractForFlow(collection, flow);
  if (txPayer === 'BUYER' && BigInt(current.minted_supply) > 0n)
    throw new ApiError(
      'ITEM_ALREADY_MINTED',
      `item ${current.id} is minted: tx_payer BUYER mints it with a voucher, so it must not be minted yet`,
    );
  checkedQuantity(String(quantity), contract.tokenType);
  const [item] = await lockFlowItems(db, { collection, flow, selection, quantity });
  if (!item) throw new ApiError('NOT_FOUND', 'item not found');
  const id = uuidv7();
  const secret = randomToken();
  const claim = {
    id,
    organization_id: organizationId,
    collection_id: collection.id,
    item_id: item.id,
    email: body.email,
    quantity,
    tx_payer: txPayer,
    type: body.type ?? null,
    campaign_id: body.campaign_id ?? null,
    token_hash: sha256(secret),
    expiration,
  };
  await repo.insertClaim(db, claim);
  await reserveItems(db, [item], 'EMAIL_CLAIM', id, quantity, { expiresAt: expiration });
  await mailLink(db, deps, claim, item, collection, secret);
  return emitClaimEvent(db, id, 'email_claim.created');
}

/**
 * A claim that delivers a sale (a purchase intent fulfilled by EMAIL), in the caller's
 * transaction: the claim row, the item's reservation passed from the intent to the claim (until
 * the expiration; never free in between) or, for an ERC-1155 sale, the claim covered by the
 * listing whose reservation holds its units (`coveredBy`), and the REDEEM_NFT mail. Returns the
 * claim's id.
 */
export async function createSaleClaim(
  db: Executor,
  deps: Deps,
  sale: {
    collection: CollectionRow;
    item: ItemRow;
    email: string;
    quantity: bigint;
    campaignId: string | null;
    expiration: Date;
  } & ({ reservedBy: string } | { coveredBy: string }),
): Promise<string> {
  const id = uuidv7();
  const secret = randomToken();
  const claim = {
    id,
    organization_id: sale.collection.organization_id,
    collection_id: sale.collection.id,
    item_id: sale.item.id,
    email: sale.email,
    quantity: sale.quantity,
    tx_payer: 'SELLER' as const,
    type: 'PURCHASE',
    campaign_id: sale.campaignId,
    token_hash: sha256(secret),
    expiration: sale.expiration,
    covered_by: 'coveredBy' in sale ? sale.coveredBy : null,
  };
  await repo.insertClaim(db, claim);
  if ('reservedBy' in sale)
    await moveReservations(db, {
      from: sale.reservedBy,
      kind: 'EMAIL_CLAIM',
      to: new Map([[sale.item.id, id]]),
      expiresAt: sale.expiration,
    });
  await mailLink(db, deps, claim, sale.item, sale.collection, secret);
  return id;
}

/** tx_payer BUYER: the recipient mints with a voucher, on an ERC721 contract with MINT_VOUCHER. */
function voucherContract(collection: CollectionRow) {
  const contract = deployedContractOf(collection);
  if (contract.tokenType !== 'ERC721' || !contract.capabilities.includes('MINT_VOUCHER'))
    throw new ApiError(
      'MISSING_MINT_CAPABILITY',
      'tx_payer BUYER needs an ERC721 contract with the MINT_VOUCHER capability (the recipient mints with a voucher)',
    );
  return contract;
}

export async function getEmailClaim(db: Executor, principal: Principal, id: string): Promise<EmailClaim> {
  const view = await getView(db, id);
  assertOrganizationAccess(principal, view.organization_id, 'email claim');
  return toEmailClaim(view);
}

export async function listEmailClaims(
  db: Executor,
  principal: Principal,
  query: ListEmailClaimsQuery,
): Promise<PageResult<EmailClaim>> {
  const { collection_ids, item_ids, token_ids, email, claimed, active, order_by, ...page } = query;
  const result = await repo.listClaims(db, page as PageParams, {
    organizationId: isPlatformAdmin(principal) ? undefined : principal.organizationId,
    collectionIds: collection_ids,
    itemIds: item_ids,
    tokenIds: token_ids,
    email,
    claimed,
    active,
    orderBy: order_by ?? 'CREATED_AT',
  });
  return { ...result, results: result.results.map(toEmailClaim) };
}

async function lockOwnClaim(db: Executor, principal: Principal, id: string): Promise<EmailClaimRow> {
  const claim = await repo.lockClaim(db, id);
  if (!claim) throw new ApiError('NOT_FOUND', 'email claim not found');
  assertOrganizationAccess(principal, claim.organization_id, 'email claim');
  return claim;
}

function assertClaimable(claim: EmailClaimRow, action: string): void {
  const status = statusOf(claim);
  if (status !== 'ACTIVE')
    throw new ApiError('INVALID_STATE', `the claim is ${status.toLowerCase()}: it cannot be ${action}`);
}

/**
 * Resend: a new link (the old secret stops working), any PIN forgotten, REDEEM_NFT mailed again,
 * to `email` when given (which becomes the claim's). Active unclaimed claims only.
 */
export async function resendEmailClaim(
  db: Executor,
  deps: Deps,
  principal: Principal,
  id: string,
  body: ResendEmailClaimBody,
): Promise<EmailClaim> {
  const claim = await lockOwnClaim(db, principal, id);
  assertClaimable(claim, 'resent');
  const secret = randomToken();
  const email = body.email ?? claim.email;
  await repo.updateClaim(db, id, {
    email,
    token_hash: sha256(secret),
    pin_hash: null,
    pin_expires_at: null,
    pin_failed_attempts: 0,
  });
  const item = await findItem(db, claim.item_id);
  const collection = await findCollection(db, claim.collection_id);
  if (!item || !collection) throw new Error(`email claim ${id} lost its item or collection`);
  await mailLink(db, deps, { ...claim, email }, item, collection, secret);
  return toEmailClaim(await getView(db, id));
}

/**
 * Revoke: deactivated as REVOKED, the item's reservation released at once (docs/api.md#email-claims);
 * a covered claim's units go back to its listing (endCoveredUnits).
 */
export async function revokeEmailClaim(
  db: Executor,
  deps: Deps,
  principal: Principal,
  id: string,
): Promise<EmailClaim> {
  const claim = await lockOwnClaim(db, principal, id);
  assertClaimable(claim, 'revoked');
  await repo.deactivateClaims(db, [id], 'REVOKED');
  await releaseReservations(db, id);
  if (claim.covered_by !== null) await endCoveredUnits(db, deps, claim.covered_by);
  return toEmailClaim(await getView(db, id));
}

/**
 * Deactivates claims past their expiration (EXPIRED) and releases their reservations (a covered
 * claim's units go back to its listing: endCoveredUnits), in batches;
 * rows a redeem holds are passed over (SKIP LOCKED) and the redeem itself refuses an expired
 * claim. Idempotent: a deactivated claim is not due any more. Returns how many expired.
 */
export async function expireDueClaims(db: Executor, deps: Deps, batch = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await db.transaction().execute(async (tx) => {
      const due = await repo.lockDueClaims(tx, batch);
      const ids = due.map((c) => c.id);
      await repo.deactivateClaims(tx, ids, 'EXPIRED');
      await releaseReservations(tx, ids);
      for (const listingId of coveringListings(due)) await endCoveredUnits(tx, deps, listingId);
      for (const id of ids) await emitClaimEvent(tx, id, 'email_claim.expired');
      return ids.length;
    });
    total += expired;
    if (expired < batch) return total;
  }
}

/** The listings covering some of the claims, each once, in id order (the order they are locked in). */
function coveringListings(claims: readonly EmailClaimRow[]): string[] {
  return [...new Set(claims.flatMap((c) => (c.covered_by === null ? [] : [c.covered_by])))].sort();
}

// ---- Public (the link holder) ----

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

async function lockByToken(db: Executor, token: string): Promise<EmailClaimRow> {
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
 */
export async function redeemEmailClaim(
  db: Executor,
  deps: Deps,
  token: string,
  body: RedeemEmailClaimBody,
  ip: string,
): Promise<RedeemResult> {
  await hitRateLimit(db, LIMITS.redeemPerIp, ip);
  const address = checkedAddress(body.address, '/address');
  const outcome = await db.transaction().execute(async (tx): Promise<RedeemOutcome> => {
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
      const contract = voucherContract(collection);
      const minter = checkedRecipient(address, contract, '/address');
      // The seller gives the item away: price 0, the recipient pays only the gas of the mint.
      const issued = await issueVoucher(tx, deps, {
        organizationId: claim.organization_id,
        collectionId: collection.id,
        itemId: item.id,
        minter,
        quantity: BigInt(claim.quantity),
        price: 0n,
        currency: zeroAddress,
        expiry: claim.expiration,
        holder: { kind: 'EMAIL_CLAIM', id: claim.id },
      });
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

/** The units of the claims a listing covers that may still deliver (see endCoveredUnits). */
export function unitsOfCoveredClaims(
  db: Executor,
  listingId: string,
  except: string | undefined,
): Promise<bigint> {
  return repo.unitsOfCoveredClaims(db, listingId, except);
}

// ---- Settlement ----

/**
 * The claims' delivery records settled (the port tokenFlowOwners' EMAIL_CLAIM): the records are
 * closed already, and this runs once for them, in the settlement's database transaction.
 * Success: CLAIMED_NFT to the claim's email. Revert or cancellation: the claim is reopened
 * (unclaimed, the item reserved for it again until its expiration: the token flow made it
 * mintable again), or deactivated as EXPIRED when its expiration has passed (the item stays
 * free). A covered claim's units stay under its listing's reservation throughout; once delivered
 * or expired, an ended listing may let the item go (endCoveredUnits).
 */
export const emailClaimFlowOwner: TokenFlowOwner = async (db, deps, { transaction, succeeded, records }) => {
  const claims = await repo.lockClaims(
    db,
    records.map((record) => record.owner_id!),
  );
  const now = new Date();
  for (const claim of claims) {
    if (claim.claimed_at === null) continue;
    if (succeeded) {
      await mailClaimed(db, claim, transaction.tx_hash ?? '');
      if (claim.covered_by !== null) await endCoveredUnits(db, deps, claim.covered_by, claim.id);
    } else if (claim.expiration > now && claim.active) {
      // A covered claim's units never left its listing's reservation.
      if (claim.covered_by === null)
        await reserveItems(db, [{ id: claim.item_id }], 'EMAIL_CLAIM', claim.id, BigInt(claim.quantity), {
          expiresAt: claim.expiration,
        });
      await repo.updateClaim(db, claim.id, { claimed_at: null });
    } else {
      await repo.updateClaim(db, claim.id, {
        claimed_at: null,
        active: false,
        deactivation_reason: 'EXPIRED',
      });
      if (claim.covered_by !== null) await endCoveredUnits(db, deps, claim.covered_by, claim.id);
      await emitClaimEvent(db, claim.id, 'email_claim.expired');
    }
  }
};

/** CLAIMED_NFT to the claim's email: the token reached `toAddress` in `txHash`. */
async function mailClaimed(db: Executor, claim: EmailClaimRow, txHash: string): Promise<void> {
  const item = await findItem(db, claim.item_id);
  const collection = await findCollection(db, claim.collection_id);
  await queueMail(db, {
    organizationId: claim.organization_id,
    campaignId: claim.campaign_id,
    templateType: 'CLAIMED_NFT',
    to: claim.email,
    variables: {
      item_name: item ? itemName(item) : '',
      item_image: item ? (itemMedia(item.attributes).image ?? '') : '',
      to_address: getAddress(claim.to_address!),
      tx_hash: txHash,
      collection_name: collection?.name ?? '',
    },
  });
}

/**
 * A BUYER claim's voucher settled (the watcher runs each outcome once per voucher). Redeemed: the
 * item is MINTED to the recipient and the claim's reservation ended by the watcher; CLAIMED_NFT
 * goes to the claim's email. Expired: the claim is deactivated as EXPIRED and the item released.
 * Cancelled (its nonce went to another voucher): the claim is reopened while before its
 * expiration (the reservation kept, a new PIN needed to redeem again), else expired.
 */
export const emailClaimVoucherHandler: VoucherHolder = {
  async redeemed(db, _deps, voucher) {
    const claim = await repo.lockClaim(db, voucher.holder_id);
    if (!claim || claim.voucher_id !== voucher.id || claim.claimed_at === null) return;
    await mailClaimed(db, claim, voucher.redeemed_tx_hash ?? '');
  },
  async ended(db, _deps, voucher) {
    const claim = await repo.lockClaim(db, voucher.holder_id);
    if (!claim || claim.voucher_id !== voucher.id) return;
    if (voucher.status === 'CANCELLED' && claim.active && claim.expiration > new Date()) {
      await repo.updateClaim(db, claim.id, { claimed_at: null, to_address: null, voucher_id: null });
      return;
    }
    await repo.updateClaim(db, claim.id, { claimed_at: null, active: false, deactivation_reason: 'EXPIRED' });
    await releaseReservations(db, claim.id);
  },
};
