import { getAddress } from 'viem';
import type { TokenFlowOwner, VoucherHolder } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { EmailClaimRow } from '../../../db/schema.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import { releaseReservations, reserveItems } from '../../catalog/items/item-flows.service.ts';
import { findItem, itemMedia } from '../../catalog/items/items.service.ts';
import { queueMail } from '../../platform/mail/mail.service.ts';
import { endCoveredUnits } from '../listings/listings.service.ts';
import { emitClaimEvent, itemName } from './email-claim-views.ts';
import * as repo from './email-claims.repository.ts';

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
