import { formatUnits } from 'viem';
import type { Executor } from '../../../../db/executor.ts';
import type { App, RouteModule } from '../../../../http/types.ts';
import { ApiError } from '../../../../lib/errors.ts';
import { UUID_PATTERN } from '../../../../lib/ids.ts';
import { scriptUrl } from '../../../../web/assets.ts';
import { html, htmlDocument, type SafeHtml, sendHtml } from '../../../../web/html.ts';
import { CONTENT_SECURITY_POLICY } from '../../../../web/web-scope.ts';
import { findCollection } from '../../../catalog/collections/collections.service.ts';
import { getPublicListing } from '../listing-sales.service.ts';
import type { PaymentProvider, PublicListing } from '../listings.schemas.ts';

/**
 * The hosted checkout of a listing: `GET /checkout/{listing_id}` shows the listing and its form,
 * `GET /checkout/{listing_id}/status?intent=…` follows one purchase. Both are rendered from the
 * listing (its state decides what the page offers); src/web/client/checkout.ts runs the purchase
 * through the public API only (`/v1/public/purchase-intents`), the intent's client_token kept in
 * the tab's sessionStorage, never sent to the server here.
 */

/**
 * A listing sold by card may load Stripe.js (only once the buyer chooses card): its script, its
 * frames and its API. Nothing else leaves the service's origin.
 */
export const CARD_CHECKOUT_CSP = CONTENT_SECURITY_POLICY.replace(
  "script-src 'self'",
  "script-src 'self' https://js.stripe.com https://*.js.stripe.com",
)
  .replace("connect-src 'self'", "connect-src 'self' https://api.stripe.com")
  .replace(
    "frame-ancestors 'none'",
    "frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com; frame-ancestors 'none'",
  );

const UUID = new RegExp(UUID_PATTERN);

const PROVIDER_LABELS: Record<PaymentProvider, string> = {
  CARD_PROVIDER: 'Card',
  CRYPTO_PROVIDER: 'Crypto (USDC, through a payment link)',
  MINT_VOUCHER: 'My wallet (I mint the token with a transaction)',
  EMAIL_CLAIM: 'Free: claim it by email',
};

/** What the listing allows now; every state but `open` replaces the form with its explanation. */
type ListingState = 'open' | 'not-started' | 'ended' | 'cancelled' | 'sold-out' | 'held' | 'pending';

function stateOf(listing: PublicListing, now = Date.now()): ListingState {
  if (listing.status === 'CANCELLED') return 'cancelled';
  if (listing.status === 'COMPLETE' || listing.quantity_remaining <= 0) return 'sold-out';
  if (listing.status === 'PENDING_TX') return 'pending';
  if (listing.end_time && Date.parse(listing.end_time) <= now) return 'ended';
  if (listing.start_time && Date.parse(listing.start_time) > now) return 'not-started';
  if (listing.quantity_available <= 0) return 'held';
  return 'open';
}

const STATE_TEXT: Record<Exclude<ListingState, 'open'>, [string, string]> = {
  'not-started': ['This sale has not started yet', 'Come back when it opens.'],
  ended: ['This sale has ended', 'Nothing more can be bought here.'],
  cancelled: ['This sale was cancelled', 'The seller cancelled it: nothing can be bought here.'],
  'sold-out': ['Sold out', 'Every unit of this sale was sold.'],
  held: [
    'Every unit is reserved right now',
    'The remaining units are held by purchases in progress. If one is not paid in time its unit comes back: try again in a few minutes.',
  ],
  pending: [
    'This sale is not open yet',
    "The collection's contract is still being deployed. Try again shortly.",
  ],
};

/** The price as a buyer reads it: cents for fiat, the coin's or token's own decimals on chain. */
async function formatPrice(db: Executor, listing: PublicListing): Promise<string> {
  const known = ['USD', 'EUR', 'ETH'].includes(listing.currency);
  const token =
    known || listing.network_id === null
      ? undefined
      : await db
          .selectFrom('payment_tokens')
          .select('decimals')
          .where('network_id', '=', listing.network_id)
          .where('symbol', '=', listing.currency)
          .executeTakeFirst();
  return priceText(BigInt(listing.price), listing.currency, token?.decimals ?? null);
}

/** `decimals`: an ERC-20 payment token's (null when unknown: the amount is shown in base units). */
export function priceText(price: bigint, currency: string, decimals: number | null): string {
  if (price === 0n) return 'Free';
  if (currency === 'USD') return `$${cents(price)}`;
  if (currency === 'EUR') return `€${cents(price)}`;
  if (currency === 'ETH') return `${formatUnits(price, 18)} ETH`;
  return decimals === null
    ? `${price} (base units of ${currency})`
    : `${formatUnits(price, decimals)} ${currency}`;
}

/** Cents as units and two decimals: 1250 → 12.50. */
const cents = (amount: bigint) => `${amount / 100n}.${(amount % 100n).toString().padStart(2, '0')}`;

const dateText = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

function windowText(listing: PublicListing): string | null {
  const { start_time: start, end_time: end } = listing;
  if (start && end) return `On sale from ${dateText(start)} until ${dateText(end)}`;
  if (start) return `On sale from ${dateText(start)}`;
  if (end) return `On sale until ${dateText(end)}`;
  return null;
}

interface Loaded {
  listing: PublicListing;
  collectionName: string | null;
  price: string;
}

/** The listing behind the URL; an id that is no UUID is no page at all (404). */
async function load(db: Executor, id: string): Promise<Loaded | null> {
  if (!UUID.test(id)) throw new ApiError('NOT_FOUND', 'no such page');
  let listing: PublicListing;
  try {
    listing = await getPublicListing(db, id);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
  const collection = await findCollection(db, listing.collection_id);
  return { listing, collectionName: collection?.name ?? null, price: await formatPrice(db, listing) };
}

function summary({ listing, collectionName, price }: Loaded): SafeHtml {
  const window = windowText(listing);
  return html`<section class="item listing" aria-label="The sale">
<div>
<p class="item-name" id="collection-name">${collectionName ?? 'A collection'}</p>
<dl class="details">
<dt>Price</dt><dd id="price">${price}${listing.price !== '0' ? html` <span class="hint">each</span>` : ''}</dd>
<dt>Remaining</dt><dd id="remaining">${listing.quantity_remaining} of ${listing.quantity_listed}</dd>
${window ? html`<dt>When</dt><dd id="window">${window}</dd>` : ''}
</dl>
</div>
</section>`;
}

function form(listing: PublicListing): SafeHtml {
  const providers = listing.payment_providers;
  const max = listing.max_quantity_per_tx;
  return html`<form id="checkout-form" novalidate>
<label for="quantity">Quantity (1 to ${max})</label>
<input id="quantity" name="quantity" type="number" inputmode="numeric" min="1" max="${max}" step="1" value="1" required aria-describedby="quantity-error">
<p id="quantity-error" class="error" hidden></p>
<fieldset id="providers">
<legend>How do you want to pay?</legend>
${providers.map(
  (provider, i) =>
    html`<label class="choice"><input type="radio" name="provider" value="${provider}"${i === 0 ? html` checked` : ''}> ${PROVIDER_LABELS[provider]}</label>
`,
)}</fieldset>
<div id="email-field">
<label for="email">Your email</label>
<input id="email" name="email" type="email" autocomplete="email" autocapitalize="off" spellcheck="false" aria-describedby="email-hint email-error">
<p id="email-hint" class="hint"></p>
<p id="email-error" class="error" hidden></p>
</div>
<div id="address-field">
<label for="address">Your wallet address</label>
<input id="address" name="address" type="text" autocomplete="off" autocapitalize="off" spellcheck="false" aria-describedby="address-hint address-error">
<p id="address-hint" class="hint">42 characters starting with 0x; a mixed-case address is checked against its EIP-55 checksum.</p>
<p id="address-error" class="error" hidden></p>
</div>
<p id="wallet-note" class="hint" hidden>Your browser wallet will ask you to connect, then to send the transaction that mints the token and pays the price plus the network fee (gas).</p>
<p id="form-error" class="error" hidden></p>
<button type="submit" id="buy">Continue</button>
</form>`;
}

const step = (
  name: string,
  title: string,
  body: SafeHtml,
) => html`<section class="step" data-step="${name}" aria-labelledby="step-${name}" hidden>
<h2 id="step-${name}" tabindex="-1">${title}</h2>
${body}
</section>
`;

const STATUS_STEPS = html`${step('loading', 'Loading your purchase', html`<p>Reading your purchase…</p>`)}${step(
  'unknown',
  'We cannot show this purchase here',
  html`<p>This page follows a purchase only in the browser tab where it was made. If you paid, the
seller has your purchase and will deliver it; check your mail.</p>`,
)}${step(
  'pay-wallet',
  'Send the transaction',
  html`<p>Your wallet sends the transaction that mints the token, paying <strong data-field="amount"></strong> plus the network fee (gas).</p>
<button type="button" id="send-tx">Send the transaction with my wallet</button>`,
)}${step(
  'pay-card',
  'Pay by card',
  html`<p>Amount: <strong data-field="amount"></strong></p>
<form id="card-form" novalidate>
<div id="payment-element" class="payment-element"></div>
<p id="card-error" class="error" hidden></p>
<button type="submit" id="card-pay">Pay</button>
</form>`,
)}${step(
  'pay-crypto',
  'Pay with crypto',
  html`<p>Amount: <strong data-field="amount"></strong>, paid in USDC on the payment provider's page.</p>
<p><a id="crypto-link" class="button">Go to the payment page</a></p>`,
)}${step(
  'paying',
  'Waiting for your payment',
  html`<p id="paying-text">Your payment is being confirmed. This page updates by itself.</p>`,
)}${step(
  'delivering',
  'Paid: delivering your purchase',
  html`<p id="delivering-text">Your payment is confirmed. The token is on its way.</p>`,
)}${step('delivered', 'Done: your purchase is delivered', html`<p id="delivered-text"></p>`)}${step(
  'expired',
  'This purchase expired',
  html`<p>It was not paid in time, so its units went back on sale. Nothing was charged.</p>`,
)}${step(
  'cancelled',
  'This purchase was cancelled',
  html`<p>Nothing was charged, and its units went back on sale.</p>`,
)}${step(
  'unresolved',
  'Your payment arrived late',
  html`<p>The payment was reported after this purchase had expired or been cancelled, so nothing was
delivered. The seller has been told and will refund or deliver it; quote the reference below.</p>`,
)}${step(
  'exception',
  'The delivery failed',
  html`<p>Your payment is confirmed but the delivery failed. The seller has been told and will fix it;
quote the reference below.</p>`,
)}${step('error', 'Something went wrong', html`<p id="error-detail"></p><button type="button" id="retry">Try again</button>`)}`;

/** Shown by the script when this tab made a purchase here (back from a payment page, say). */
const RESUME = html`<p id="resume" class="notice" hidden>You started a purchase here in this tab: <a id="resume-link">follow it</a>.</p>
`;

export const checkoutPage: RouteModule = (app: App, ctx) => {
  const render = async (
    listingId: string,
    reply: Parameters<typeof sendHtml>[0],
    body: (loaded: Loaded) => SafeHtml,
    page: 'checkout' | 'status',
  ) => {
    const loaded = await load(ctx.db, listingId);
    if (loaded === null) {
      return sendHtml(
        reply,
        htmlDocument({
          title: 'Sale not found',
          body: html`<main class="checkout" data-state="not-found">
<h1>This sale does not exist</h1>
<p>The link may be incomplete or the sale was removed. Check the link you were given.</p>
</main>`,
        }),
        404,
      );
    }
    if (loaded.listing.payment_providers.includes('CARD_PROVIDER'))
      reply.header('content-security-policy', CARD_CHECKOUT_CSP);
    const title = loaded.collectionName ? `Buy from ${loaded.collectionName}` : 'Checkout';
    return sendHtml(
      reply,
      htmlDocument({
        title,
        body: html`<main class="checkout" data-page="${page}" data-listing-id="${loaded.listing.id}">
<h1>${title}</h1>
${summary(loaded)}
${body(loaded)}
</main>`,
        scripts: [await scriptUrl('checkout.js')],
      }),
    );
  };

  app.get<{ Params: { listing_id: string } }>('/checkout/:listing_id', async (request, reply) =>
    render(
      request.params.listing_id,
      reply,
      ({ listing }) => {
        const state = stateOf(listing);
        if (state !== 'open') {
          const [heading, text] = STATE_TEXT[state];
          return html`${RESUME}<section class="closed" data-state="${state}" aria-labelledby="closed-heading">
<h2 id="closed-heading">${heading}</h2>
<p>${text}</p>
</section>`;
        }
        return html`${RESUME}<p id="status" class="status" role="status" aria-live="polite"></p>
<noscript><p class="notice">This page needs JavaScript to buy.</p></noscript>
${form(listing)}`;
      },
      'checkout',
    ),
  );

  app.get<{ Params: { listing_id: string } }>('/checkout/:listing_id/status', async (request, reply) =>
    render(
      request.params.listing_id,
      reply,
      () => html`<p id="status" class="status" role="status" aria-live="polite">Loading your purchase…</p>
<noscript><p class="notice">This page needs JavaScript to follow your purchase.</p></noscript>
${STATUS_STEPS}<dl id="intent-details" class="details" hidden></dl>
<p><button type="button" id="cancel" class="secondary" hidden>Cancel this purchase</button></p>
<p><a id="back" href="/checkout/${request.params.listing_id}">Back to the sale</a></p>`,
      'status',
    ),
  );
};
