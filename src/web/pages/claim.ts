import type { App } from '../../http/types.ts';
import { scriptUrl } from '../assets.ts';
import { html, htmlDocument, sendHtml } from '../html.ts';
import { CONTENT_SECURITY_POLICY } from '../web-scope.ts';

/**
 * The claim page allows even less than the rest of the site: no image from anywhere but the
 * service (an item's artwork elsewhere is a link, so opening the page tells no third party who
 * holds the claim).
 */
export const CLAIM_PAGE_CSP = CONTENT_SECURITY_POLICY.replace(
  "img-src 'self' data: https:",
  "img-src 'self' data:",
);

/**
 * `GET /claim?token=…`: the page an email claim's link opens (docs/api.md#email-claims). The
 * markup holds every step, hidden; src/web/client/claim.ts runs the claim through the public API
 * (`/v1/public/email-claims/{token}`), so the server never reads the token here and the page is
 * the same for every claim. The token stays in the URL (a reload resumes) and is kept out of logs
 * (logger.ts) and referrers (`Referrer-Policy: no-referrer`).
 */
export function claimPage(app: App): void {
  app.get('/claim', async (_request, reply) => {
    reply.header('content-security-policy', CLAIM_PAGE_CSP);
    return sendHtml(
      reply,
      htmlDocument({ title: 'Claim your token', body: CLAIM_BODY, scripts: [await scriptUrl('claim.js')] }),
    );
  });
}

const step = (
  name: string,
  title: string,
  body: ReturnType<typeof html>,
) => html`<section class="step" data-step="${name}" aria-labelledby="step-${name}" hidden>
<h2 id="step-${name}" tabindex="-1">${title}</h2>
${body}
</section>
`;

const CLAIM_BODY = html`<main class="claim">
<h1>Claim your token</h1>
<p id="status" class="status" role="status" aria-live="polite">Loading your claim…</p>
<noscript><p class="notice">This page needs JavaScript to claim your token.</p></noscript>
<section id="item" class="item" aria-label="The token" hidden>
<img id="item-image" alt="" hidden>
<div>
<p class="item-name" id="item-name"></p>
<p id="item-collection"></p>
<p id="item-token" hidden></p>
<p id="item-image-link" hidden><a rel="noreferrer noopener" target="_blank">View the artwork</a> (opens another site)</p>
<p id="item-expiration" class="hint"></p>
</div>
</section>
${step('loading', 'Loading', html`<p>Reading your claim…</p>`)}${step(
  'invalid',
  'This link does not work',
  html`<p>The link may be incomplete, or a newer one was sent to you (each new mail replaces the
previous link). Open the latest mail again, or ask the sender for a new link.</p>`,
)}${step(
  'expired',
  'This claim has expired',
  html`<p>The time to claim this token is over. Ask the sender if they can send you a new claim.</p>`,
)}${step(
  'revoked',
  'This claim was withdrawn',
  html`<p>The sender withdrew this claim, so the token can no longer be claimed with this link.</p>`,
)}${step(
  'claimed',
  'This token has already been claimed',
  html`<p id="claimed-text">Someone with this link has already claimed the token.</p>
<dl id="claimed-details" class="details"></dl>`,
)}${step(
  'request-pin',
  'Confirm that this is your email',
  html`<p id="pin-burned" class="notice" hidden></p>
<p>We will send a 6-digit code to <strong data-field="email_hint"></strong>.</p>
<button type="button" id="send-pin">Send me a code</button>
<p id="send-wait" class="hint" hidden></p>`,
)}${step(
  'enter-pin',
  'Enter your code',
  html`<p>We sent a 6-digit code to <strong data-field="email_hint"></strong>. It is valid for 15
minutes.</p>
<form id="pin-form" novalidate>
<label for="pin">6-digit code</label>
<input id="pin" name="pin" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required aria-describedby="pin-error">
<p id="pin-error" class="error" hidden></p>
<button type="submit" id="pin-submit">Continue</button>
</form>
<p class="resend"><button type="button" id="resend-pin" class="secondary">Send a new code</button>
<span id="resend-wait" class="hint"></span></p>`,
)}${step(
  'destination',
  'Where should your token go?',
  html`<p id="buyer-note" class="notice" hidden>This claim gives you a <strong>mint voucher</strong>: a
signed permission to mint the token yourself. Minting it is a transaction you send and pay the
network fee (gas) for, so the wallet you choose needs funds on the token's network.</p>
<fieldset>
<legend>Choose a wallet</legend>
<label class="choice"><input type="radio" name="destination" value="address" checked> I have a wallet: use its address</label>
<label class="choice"><input type="radio" name="destination" value="create"> Create a new wallet in this browser</label>
</fieldset>
<form id="address-form" novalidate>
<label for="address">Your wallet address</label>
<input id="address" name="address" type="text" autocomplete="off" autocapitalize="off" spellcheck="false" aria-describedby="address-hint address-error">
<p id="address-hint" class="hint">42 characters starting with 0x. A mixed-case address is checked against its EIP-55 checksum.</p>
<p id="address-error" class="error" hidden></p>
<button type="submit">Claim to this address</button>
</form>
<div id="create-panel" hidden>
<p>The wallet is made on this device: its secret key stays in this browser and only its address
is sent to us. You will see a 12-word recovery phrase once; anyone holding it controls the wallet.</p>
<button type="button" id="create-wallet">Create my wallet</button>
</div>`,
)}${step(
  'wallet',
  'Save your recovery phrase',
  html`<p>Your new wallet: <code id="wallet-address" class="address"></code></p>
<p class="notice"><strong>Important:</strong> these 12 words are the only way to use this wallet.
Write them down in order and keep them private. They are shown only once and never sent to us.</p>
<ol id="phrase" class="phrase"></ol>
<h3>Encrypted backup file (optional)</h3>
<p>A keystore file (the Ethereum keystore v3 format that wallets import), encrypted with a password you choose.</p>
<form id="keystore-form" novalidate>
<label for="keystore-password">Password for the file (at least 8 characters)</label>
<input id="keystore-password" type="password" autocomplete="new-password" minlength="8" aria-describedby="keystore-error">
<label for="keystore-confirm">Repeat the password</label>
<input id="keystore-confirm" type="password" autocomplete="new-password" aria-describedby="keystore-error">
<p id="keystore-error" class="error" hidden></p>
<button type="submit" class="secondary" id="keystore-download">Download the encrypted keystore</button>
</form>
<form id="saved-form" novalidate>
<p><label class="choice"><input type="checkbox" id="saved" aria-describedby="saved-error"> I saved my recovery phrase</label></p>
<p id="saved-error" class="error" hidden></p>
<button type="submit">Claim to this wallet</button>
</form>`,
)}${step(
  'minting',
  'Minting your token…',
  html`<p>The token is on its way to <code data-field="to_address" class="address"></code>. This takes
a few seconds, sometimes minutes; you may keep this page open or come back to the link later.</p>
<p id="minting-state"></p>`,
)}${step(
  'done',
  'The token is yours',
  html`<p>It was delivered to your wallet.</p>
<dl id="done-details" class="details"></dl>`,
)}${step(
  'failed',
  'The delivery failed',
  html`<p>The transaction that should deliver your token failed, so the claim is open again: you
can claim it once more with a new code. If it fails again, contact the sender and quote the
transaction id below.</p>
<dl id="failed-details" class="details"></dl>
<button type="button" id="claim-again">Claim again</button>`,
)}${step(
  'voucher',
  'Your mint voucher',
  html`<p>This claim gives you a voucher instead of a minted token. With a wallet that has funds on
the token's network, send it to the collection's contract to mint the token; you pay the network
fee (gas).</p>
<pre id="voucher-json" class="voucher" tabindex="0" aria-label="The voucher (JSON)"></pre>
<button type="button" id="download-voucher" class="secondary">Download the voucher</button>`,
)}${step(
  'error',
  'Something went wrong',
  html`<p id="error-detail"></p>
<button type="button" id="retry">Try again</button>`,
)}</main>`;
