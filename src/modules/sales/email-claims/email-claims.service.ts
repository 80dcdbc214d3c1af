import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import type { Deps } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { CollectionRow, EmailClaimRow, ItemRow } from '../../../db/schema.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { ApiError } from '../../../lib/errors.ts';
import { randomToken, uuidv7 } from '../../../lib/ids.ts';
import { sha256 } from '../../../lib/secrets.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import {
  deployedContractOf,
  type ItemFlow,
  lockFlowItems,
  moveReservations,
  releaseReservations,
  reserveItems,
} from '../../catalog/items/item-flows.service.ts';
import { collectionOfSelection } from '../../catalog/items/item-selection.ts';
import { findItem, itemMedia } from '../../catalog/items/items.service.ts';
import { queueMail } from '../../platform/mail/mail.service.ts';
import { findOrganization } from '../../platform/organizations/organizations.service.ts';
import { checkedQuantity, contractForFlow } from '../../tokens/token-flows/token-flows.service.ts';
import { endCoveredUnits } from '../listings/listings.service.ts';
import { DEFAULT_CLAIM_TTL_MS } from './email-claim-rules.ts';
import { emitClaimEvent, getView, itemName, statusOf, toEmailClaim } from './email-claim-views.ts';
import * as repo from './email-claims.repository.ts';
import type {
  CreateEmailClaimBody,
  EmailClaim,
  ListEmailClaimsQuery,
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

/**
 * How the item reaches the recipient: minted (not minted yet, or an ERC-1155 whose wallet stock
 * does not cover the quantity) or transferred from the organization's wallet (minted and held).
 * The claim's reservation keeps the item as it was, so create and redeem choose alike.
 */
export function deliveryFlow(item: ItemRow, quantity: bigint): ItemFlow {
  return BigInt(item.minted_supply) > 0n && BigInt(item.held_supply) >= quantity ? 'TRANSFER' : 'MINT';
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
  db: Tx,
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
export function voucherContract(collection: CollectionRow) {
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

async function lockOwnClaim(db: Tx, principal: Principal, id: string): Promise<EmailClaimRow> {
  const claim = await repo.lockClaim(db, id);
  if (!claim) throw new ApiError('NOT_FOUND', 'email claim not found');
  assertOrganizationAccess(principal, claim.organization_id, 'email claim');
  return claim;
}

export function assertClaimable(claim: EmailClaimRow, action: string): void {
  const status = statusOf(claim);
  if (status !== 'ACTIVE')
    throw new ApiError('INVALID_STATE', `the claim is ${status.toLowerCase()}: it cannot be ${action}`);
}

/**
 * Resend: a new link (the old secret stops working), any PIN forgotten, REDEEM_NFT mailed again,
 * to `email` when given (which becomes the claim's). Active unclaimed claims only.
 */
export async function resendEmailClaim(
  db: Tx,
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
  db: Tx,
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

/** The units of the claims a listing covers that may still deliver (see endCoveredUnits). */
export function unitsOfCoveredClaims(
  db: Executor,
  listingId: string,
  except: string | undefined,
): Promise<bigint> {
  return repo.unitsOfCoveredClaims(db, listingId, except);
}
