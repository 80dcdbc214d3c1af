import type { Kysely } from 'kysely';
import { getAddress, zeroAddress } from 'viem';
import type { Deps } from '../../../context.ts';
import type { Tx } from '../../../db/executor.ts';
import type { Database, ListingRow, PurchaseIntentRow } from '../../../db/schema.ts';
import { ApiError } from '../../../lib/errors.ts';
import {
  issueVoucher,
  type VoucherChain,
  withVoucherChain,
} from '../../tokens/mint-vouchers/voucher-issue.service.ts';
import { paymentTokenAddress } from '../listings/listing-sales.service.ts';
import { completeClaimSale } from './purchase-confirmation.service.ts';
import * as repo from './purchase-intents.repository.ts';
import type { CreatedPurchaseIntent } from './purchase-intents.schemas.ts';
import { assignItems, dropUnfinishedIntent, emitIntentEvent } from './purchase-intents.service.ts';

/**
 * What follows an email claim's sale or a mint voucher's hold taken first (createHoldFirst), each
 * step its own short transaction so that no buyer's work holds the listing's row for others: the
 * claim sale completed (completeClaimSale); or the voucher's item assigned (without the listing's
 * lock: assignItems), the chain read with nothing locked, and the voucher signed under the item's
 * lock. A voucher that fails after the hold drops the intent and its hold, as if the request had
 * never come; a crash in between leaves an unsigned intent that the expiry sweep drops, or a claim
 * sale that it completes (UNFINISHED_AFTER_SECONDS).
 */

/** A held intent: the answer its buyer will get, its row and its listing as read before the hold. */
export interface HeldIntent {
  answer: CreatedPurchaseIntent;
  intent: PurchaseIntentRow;
  listing: ListingRow;
}

/**
 * The claim sale completed, or the voucher signed, for an EMAIL_CLAIM or MINT_VOUCHER intent
 * held first (`completed`: the sale took the listing's last unit).
 */
export async function completeHeld(
  db: Kysely<Database>,
  deps: Deps,
  held: HeldIntent,
  completed = false,
): Promise<HeldIntent> {
  if (held.intent.payment_provider === 'EMAIL_CLAIM') {
    // Sold already: what fails here is completed by the expiry sweep, never undone. A plain
    // commit: no other buyer waits on what this locks (the intent, its items' reservations).
    await db.transaction().execute((tx) => completeClaimSale(tx, deps, held.intent.id, completed));
    return held;
  }
  try {
    const data = await issueHeldVoucher(db, deps, held);
    return { ...held, answer: { ...held.answer, data } };
  } catch (error) {
    await db.transaction().execute((tx) => dropUnfinishedIntent(tx, held.intent.id));
    throw error;
  }
}

/** The held intent, locked, while it is still PENDING; else it ended meanwhile (409). */
async function lockHeld(db: Tx, id: string): Promise<PurchaseIntentRow> {
  const intent = await repo.lockIntent(db, id);
  if (intent?.status !== 'PENDING')
    throw new ApiError(
      'INVALID_STATE',
      'the hold ended before the purchase was complete (the listing was cancelled, or the request took too long): nothing is held',
    );
  return intent;
}

/**
 * A held voucher intent's voucher: refused while another voucher intent of the address on the
 * collection, made before this one, is PENDING; its item assigned; then the voucher signed from
 * the chain state read with nothing locked (read again if it went stale). Answers its data.
 */
async function issueHeldVoucher(db: Kysely<Database>, deps: Deps, held: HeldIntent) {
  const { intent, listing } = held;
  const minter = getAddress(intent.eth_address!);
  const [itemId] = await db.transaction().execute(async (tx) => {
    const locked = await lockHeld(tx, intent.id);
    if (await repo.pendingVoucherIntentOf(tx, listing.collection_id, minter, intent.id))
      throw new ApiError('INVALID_STATE', 'this address has a pending mint voucher for the contract');
    const items = await assignItems(tx, locked, listing);
    await repo.updateIntent(tx, intent.id, { item_ids: items });
    return items;
  });
  const target = { organizationId: listing.organization_id, collectionId: listing.collection_id, minter };
  // Each step is one trip to the pool, where a drop's other buyers wait too: the voucher's
  // transaction commits plainly (nobody waits on its locks), with no flush asked after it.
  return withVoucherChain(db, deps, target, (chain) =>
    db.transaction().execute(async (tx) => {
      const locked = await lockHeld(tx, intent.id);
      const data = await signVoucherFor(tx, deps, locked, listing, chain, itemId!);
      await emitIntentEvent(tx, locked, 'purchase_intent.created');
      return data;
    }),
  );
}

/**
 * MINT_VOUCHER's data: the voucher of the intent's item (assigned to it, its token id signed
 * into the voucher), signed by the organization's wallet for the buyer's address, priced at the
 * listing's price, expiring with the intent; stored on the intent. The voucher's watcher ends the
 * hold when the voucher expires on chain.
 */
export async function signVoucherFor(
  db: Tx,
  deps: Deps,
  intent: PurchaseIntentRow,
  listing: ListingRow,
  chain: VoucherChain,
  itemId: string,
): Promise<Record<string, unknown>> {
  const currency = listing.currency === 'ETH' ? zeroAddress : await paymentTokenAddress(db, listing);
  const issued = await issueVoucher(
    db,
    deps,
    {
      organizationId: listing.organization_id,
      collectionId: listing.collection_id,
      itemId,
      minter: getAddress(intent.eth_address!),
      quantity: 1n,
      price: BigInt(listing.price) * BigInt(intent.quantity),
      currency,
      expiry: intent.expiration,
      holder: { kind: 'PURCHASE_INTENT', id: intent.id },
    },
    chain,
  );
  const data = issued.data as unknown as Record<string, unknown>;
  await repo.updateIntent(db, intent.id, { item_ids: [itemId], data });
  return data;
}
