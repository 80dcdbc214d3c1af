import { getAddress } from 'viem';
import type { Deps, TokenFlowOwner, VoucherHolder } from '../../../context.ts';
import type { Tx } from '../../../db/executor.ts';
import type { ItemRow, MintVoucherRow } from '../../../db/schema.ts';
import { ApiError } from '../../../lib/errors.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import { lockItems } from '../../catalog/items/item-flows.service.ts';
import { findTransaction } from '../../platform/transactions/transactions.service.ts';
import {
  contractForFlow,
  hasOpenTokenRequests,
  startTokenFlow,
} from '../../tokens/token-flows/token-flows.service.ts';
import { createSaleClaim } from '../email-claims/email-claims.service.ts';
import { findListing, lockListingForSale, sellHeld } from '../listings/listing-sales.service.ts';
import { endCoveredUnits, policyOf } from '../listings/listings.service.ts';
import * as repo from './purchase-intents.repository.ts';
import { emitIntentEvent, endHold } from './purchase-intents.service.ts';

/**
 * Delivery of a CONFIRMED, ASSIGNED intent (the job's work; idempotent: an intent already given
 * its claims or transactions is left alone). TRANSFER: minted (or transferred when minted and held)
 * to eth_address through the token-flow pipeline, the items' reservations passed to its records
 * (ERC-1155: the records covered by the listing's reservation); COMPLETED or EXCEPTION at
 * settlement. EMAIL: one email claim per item (expiring after the policy's email_claim_duration,
 * with the listing's campaign; ERC-1155: one claim for the intent's quantity, covered by the
 * listing), COMPLETED once created and mailed.
 * A delivery the contract cannot carry is EXCEPTION with the reason.
 */

/**
 * An intent's delivery once confirmed (by transfer through the token flow, or by email claims),
 * what its delivery records' settlement means for it, and what its mint voucher's outcome means.
 */

export async function deliverPurchaseIntent(db: Tx, deps: Deps, id: string): Promise<void> {
  const intent = await repo.lockIntent(db, id);
  if (intent?.status !== 'CONFIRMED' || intent.fulfillment_status !== 'ASSIGNED') return;
  if (intent.transaction_ids.length > 0 || intent.item_claim_ids.length > 0) return;
  // The listing as read, unlocked: a drop's deliveries never hold up its buyers' holds. An ERC-1155
  // listing that ends meanwhile keeps its units for this delivery, counted in delivery until the
  // claims or records that take them over are committed with it (endCoveredUnits).
  const listing = await findListing(db, intent.listing_id);
  if (!listing) throw new Error(`listing ${intent.listing_id} of purchase intent ${id} not found`);
  const collection = (await findCollection(db, listing.collection_id))!;
  const items = await lockItems(db, intent.item_ids);
  const erc1155 = collection.token_type === 'ERC1155';
  const quantity = erc1155 ? BigInt(intent.quantity) : 1n;
  const fail = async (reason: string) => {
    await repo.updateIntent(db, id, { fulfillment_status: 'EXCEPTION', fulfillment_error: reason });
    // Undeliverable: an ended ERC-1155 listing no longer keeps units for this sale.
    if (erc1155) await endCoveredUnits(db, deps, listing.id);
  };
  if (intent.fulfillment_method === 'EMAIL') {
    const expiration = new Date(Date.now() + policyOf(listing).email_claim_duration * 1000);
    const claimIds: string[] = [];
    for (const item of items) {
      claimIds.push(
        await createSaleClaim(db, deps, {
          collection,
          item,
          email: intent.email!,
          quantity,
          campaignId: listing.campaign_id,
          expiration,
          // ERC-1155: the intent's units of the item stay under the listing's reservation, which
          // keeps the item for its other buyers; the claim is covered by it (createSaleClaim).
          ...(erc1155 ? { coveredBy: listing.id } : { reservedBy: id }),
        }),
      );
    }
    await repo.updateIntent(db, id, { item_claim_ids: claimIds, fulfillment_status: 'COMPLETED' });
    await emitIntentEvent(db, id, 'purchase_intent.fulfilled');
    return;
  }
  const to = getAddress(intent.eth_address!);
  const groups = new Map<'MINT' | 'TRANSFER', ItemRow[]>();
  for (const item of items) {
    const flow =
      BigInt(item.minted_supply) > 0n && BigInt(item.held_supply) >= quantity ? 'TRANSFER' : 'MINT';
    groups.set(flow, [...(groups.get(flow) ?? []), item]);
  }
  for (const flow of groups.keys()) {
    try {
      contractForFlow(collection, flow);
    } catch (error) {
      if (error instanceof ApiError) return fail(error.detail);
      throw error;
    }
  }
  const transactionIds = new Set<string>();
  for (const [flow, flowItems] of groups) {
    const records = await startTokenFlow(db, deps, {
      flow,
      collection,
      items: flowItems,
      quantity,
      to,
      ...(erc1155 ? { coveredBy: listing.id } : { reservedBy: id }),
      owner: { kind: 'PURCHASE_INTENT', id },
    });
    for (const record of records) transactionIds.add(record.transaction_id);
  }
  await repo.updateIntent(db, id, { transaction_ids: [...transactionIds] });
}

/**
 * The intents' delivery records settled (the port tokenFlowOwners' PURCHASE_INTENT): the records
 * are closed already, and this runs once for them, in the settlement's database transaction. A
 * failure is EXCEPTION with the reason; success is COMPLETED once every transaction of the intent
 * succeeded and its records are closed (the last one's settlement sees the others closed).
 */
export const purchaseIntentFlowOwner: TokenFlowOwner = async (
  db,
  deps,
  { transaction, succeeded, records, reason },
) => {
  const intents = await repo.lockAssignedIntents(db, [...new Set(records.map((record) => record.owner_id!))]);
  const ended = new Set<string>();
  for (const intent of intents) {
    if (!succeeded) {
      ended.add(intent.listing_id);
      await repo.updateIntent(db, intent.id, {
        fulfillment_status: 'EXCEPTION',
        fulfillment_error:
          reason !== undefined
            ? `delivery taken out of transaction ${transaction.id} before it was sent: ${reason}`
            : `delivery transaction ${transaction.id} ${
                transaction.failure_reason ??
                (transaction.state === 'CANCELLED' ? 'was cancelled' : 'reverted on chain')
              }`,
      });
      continue;
    }
    let all = true;
    for (const other of intent.transaction_ids) {
      if (other === transaction.id) continue;
      const row = await findTransaction(db, other);
      // Settled means its records too: their settlement finishes the items (MINTED, owner) and,
      // when it runs after this one, completes the intent seeing this side closed.
      if (
        row?.state !== 'COMPLETED' ||
        row.on_chain_status !== 'SUCCESS' ||
        (row.type === 'MINT' || row.type === 'TRANSFER'
          ? await hasOpenTokenRequests(db, row.type, other)
          : false)
      )
        all = false;
    }
    if (all && intent.fulfillment_status !== 'COMPLETED') {
      ended.add(intent.listing_id);
      await repo.updateIntent(db, intent.id, { fulfillment_status: 'COMPLETED' });
      await emitIntentEvent(db, intent.id, 'purchase_intent.fulfilled');
    }
  }
  // Deliveries that ended: an ended ERC-1155 listing kept its item for them (endCoveredUnits).
  for (const listingId of [...ended].sort()) await endCoveredUnits(db, deps, listingId);
};

/**
 * What a purchase intent's mint voucher does (the port voucherHolders). Redeemed: the item is
 * minted to the buyer (the watcher ended the intent's reservation), the held unit is sold, and the
 * intent is CONFIRMED with its fulfilment COMPLETED, or UNRESOLVED when the buyer had cancelled it.
 * Ended unredeemed: a PENDING intent is EXPIRED, and the hold ends (the item back to the listing).
 */
export const purchaseIntentVoucherHandler: VoucherHolder = {
  async redeemed(db, _deps, voucher: MintVoucherRow) {
    const intent = await repo.lockIntent(db, voucher.holder_id);
    if (!intent || (intent.status !== 'PENDING' && intent.status !== 'CANCELLED')) return;
    const listing = await lockListingForSale(db, intent.listing_id);
    await sellHeld(db, listing, intent.quantity, true);
    await repo.updateIntent(db, intent.id, {
      status: intent.status === 'PENDING' ? 'CONFIRMED' : 'UNRESOLVED',
      confirmed_at: new Date(),
      fulfillment_status: 'COMPLETED',
    });
    // Redeemed on time: confirmed, and fulfilled (the mint was the delivery); after a cancel: unresolved.
    if (intent.status === 'PENDING') {
      await emitIntentEvent(db, intent.id, 'purchase_intent.confirmed');
      await emitIntentEvent(db, intent.id, 'purchase_intent.fulfilled');
    } else await emitIntentEvent(db, intent.id, 'purchase_intent.unresolved');
  },
  async ended(db, _deps, voucher: MintVoucherRow) {
    const intent = await repo.lockIntent(db, voucher.holder_id);
    if (!intent || (intent.status !== 'PENDING' && intent.status !== 'CANCELLED')) return;
    if (intent.item_ids.length === 0) return;
    await endHold(db, intent, intent.status === 'PENDING' ? 'EXPIRED' : 'CANCELLED');
  },
};
