import type { PaymentCheck, PaymentSessions } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { ListingRow, PurchaseIntentRow } from '../../../db/schema.ts';
import { iso } from '../../../http/schemas.ts';
import { CryptoProviderError, type PaymentLink } from '../../../providers/crypto/crypto-payments.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import { findCryptoAccount, getCryptoAccount } from './crypto-provider.service.ts';
import { centsOfUsdc, usdcOfCents } from './usdc.ts';

/** A payment link's description is shown to the buyer on the provider's page. */
const MAX_DESCRIPTION_LENGTH = 200;

/** Statuses after which a link can never be paid (COMPLETED is paid, reported apart). */
const CLOSED_STATUSES = new Set(['EXPIRED', 'DEACTIVATED', 'FAILED']);

/**
 * CRYPTO_PROVIDER: a Coinbase Business payment link per intent, in USDC (1:1 with the listing's
 * USD cents), expiring with the intent. Its id is the intent's crypto_provider_charge_id.
 */
export const cryptoPaymentSessions: PaymentSessions = {
  async assertReady(db, deps, organizationId) {
    await getCryptoAccount(db, deps, organizationId);
  },

  async defaultSessionSeconds() {
    return undefined;
  },

  async open(db, deps, intent, listing) {
    const account = await getCryptoAccount(db, deps, intent.organization_id);
    const link = await deps.cryptoPayments.createPaymentLink(account.credentials, {
      amount: usdcOfCents(BigInt(priceOf(intent).amount)),
      network: account.network,
      description: await descriptionOf(db, intent, listing),
      expiresAt: intent.expiration,
      metadata: { purchase_intent_id: intent.id },
      // The Payment Link API's X-Idempotency-Key: an open retried for the same intent gets the
      // link created first.
      idempotencyKey: intent.id,
    });
    return {
      reference: link.id,
      data: {
        payment_link_id: link.id,
        url: link.url,
        expires_at: iso(link.expiresAt ?? intent.expiration),
      },
    };
  },

  async cancel(db, deps, intent) {
    const linkId = intent.crypto_provider_charge_id;
    if (linkId === null) return;
    const account = await findCryptoAccount(db, deps, intent.organization_id);
    // Without the key (the set-up was deleted) nothing can be asked of the provider; the link
    // still expires with the intent, and a payment to it is UNRESOLVED.
    if (!account) {
      deps.logger.warn(
        { purchase_intent_id: intent.id, payment_link_id: linkId },
        'crypto provider not configured: payment link left to expire',
      );
      return;
    }
    const link = await deps.cryptoPayments.retrievePaymentLink(account.credentials, linkId);
    if (link.status !== 'ACTIVE') return;
    try {
      await deps.cryptoPayments.deactivatePaymentLink(account.credentials, linkId);
    } catch (error) {
      // Refused because it ended meanwhile (paid, expired): no error.
      if (!(error instanceof CryptoProviderError) || error.providerStatus === undefined) throw error;
      if (error.providerStatus >= 500) throw error;
      const again = await deps.cryptoPayments.retrievePaymentLink(account.credentials, linkId);
      if (again.status === 'ACTIVE') throw error;
    }
  },

  async check(db, deps, intent) {
    const linkId = intent.crypto_provider_charge_id;
    if (linkId === null) return { state: 'OPEN' };
    const account = await getCryptoAccount(db, deps, intent.organization_id);
    return checkOf(await deps.cryptoPayments.retrievePaymentLink(account.credentials, linkId));
  },
};

/** What a payment link's status says of the payment. */
export function checkOf(link: PaymentLink): PaymentCheck {
  if (link.status === 'COMPLETED') {
    const amount = centsOfUsdc(link.amount);
    if (amount === undefined)
      throw new CryptoProviderError(`payment link ${link.id} has no amount in cents`, undefined);
    return { state: 'PAID', amount, currency: 'USD' };
  }
  if (CLOSED_STATUSES.has(link.status)) return { state: 'CLOSED' };
  return { state: 'OPEN' };
}

function priceOf(intent: PurchaseIntentRow): { amount: string; currency: string } {
  const price = intent.provider_price as { amount: string; currency: string };
  // CRYPTO_PROVIDER listings are priced in USD (cents); USDC is paid 1:1.
  if (price.currency !== 'USD')
    throw new Error(`intent ${intent.id} is priced in ${price.currency}: crypto sales are in USD`);
  return price;
}

async function descriptionOf(db: Executor, intent: PurchaseIntentRow, listing: ListingRow): Promise<string> {
  const collection = await findCollection(db, listing.collection_id);
  const name = collection?.name ?? 'tokens';
  const what = intent.quantity === 1 ? name : `${intent.quantity} × ${name}`;
  return `${what} (listing ${listing.id})`.slice(0, MAX_DESCRIPTION_LENGTH);
}
