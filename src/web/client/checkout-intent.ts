/**
 * What both checkout pages share: the page and its listing, the purchase intent as the public
 * API answers it, and what this tab keeps of it in sessionStorage (its client_token).
 */

export type Provider = 'CARD_PROVIDER' | 'CRYPTO_PROVIDER' | 'MINT_VOUCHER' | 'EMAIL_CLAIM';
type IntentStatus = 'PENDING' | 'CONFIRMED' | 'EXPIRED' | 'CANCELLED' | 'UNRESOLVED';
type FulfillmentStatus = 'PENDING' | 'ASSIGNED' | 'COMPLETED' | 'EXCEPTION';

export interface Listing {
  id: string;
  status: string;
  network_id: number | null;
  contract_address: string | null;
  price: string;
  currency: string;
  max_quantity_per_tx: number;
  payment_providers: Provider[];
}

export interface VoucherData {
  contract: string;
  minter: string;
  network_id: number;
  signature: string;
  voucher: Record<string, string>;
}

export interface CardData {
  account_id: string;
  client_secret: string;
  publishable_key: string;
}

export interface CryptoData {
  url: string;
}

export interface Intent {
  id: string;
  status: IntentStatus;
  fulfillment_status: FulfillmentStatus;
  fulfillment_method: 'TRANSFER' | 'EMAIL' | 'VOUCHER';
  payment_provider: Provider;
  quantity: number;
  provider_price: { amount: string; currency: string };
  data: Record<string, unknown> | null;
  transaction_ids: string[];
  item_claim_ids: string[];
  expiration: string;
}

export interface Created {
  id: string;
  client_token: string;
  data: Record<string, unknown> | null;
}

export const main = document.querySelector<HTMLElement>('main.checkout');
export const listingId = main?.dataset.listingId ?? '';

const storageKey = (intentId: string) => `checkout:${intentId}`;
export interface Stored {
  token: string;
  /** The listing it buys from: its checkout offers to follow the purchase again. */
  listing?: string;
  /** Set by the form: the status page starts the wallet's transaction at once. */
  autopay?: boolean;
  /** The redeem transaction sent, so a reload does not offer to send it again. */
  tx_hash?: string;
}
export function readStored(intentId: string): Stored | null {
  try {
    const text = sessionStorage.getItem(storageKey(intentId));
    return text ? (JSON.parse(text) as Stored) : null;
  } catch {
    return null;
  }
}
export function writeStored(intentId: string, stored: Stored): void {
  sessionStorage.setItem(storageKey(intentId), JSON.stringify(stored));
}
export const statusUrl = (intentId: string) =>
  `${location.origin}/checkout/${encodeURIComponent(listingId)}/status?intent=${encodeURIComponent(intentId)}`;

export function safeUrl(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  try {
    const url = new URL(text, location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
