import { isFailure, requestJson } from './api.ts';
import { mountCard, onCardSubmit } from './checkout-card.ts';
import { type CryptoData, type Intent, readStored, safeUrl, writeStored } from './checkout-intent.ts';
import { type Step, show, status } from './checkout-steps.ts';
import { failureText, formatAmount } from './checkout-text.ts';
import { sendTransaction } from './checkout-wallet.ts';
import { $, announce } from './dom.ts';

/**
 * The status page (`/checkout/{listing_id}/status?intent=…`): reads the intent with the token this
 * tab kept, shows the step its state calls for (pay, paying, delivering, a final state), follows
 * it until a final state, and cancels it on request.
 */

const TERMINAL: ReadonlySet<Step> = new Set([
  'delivered',
  'expired',
  'cancelled',
  'unresolved',
  'exception',
  'unknown',
]);

function details(intent: Intent): void {
  const list = $('intent-details');
  list.hidden = false;
  list.replaceChildren();
  const rows: [string, string][] = [
    ['Reference', intent.id],
    ['Quantity', String(intent.quantity)],
    ['Amount', formatAmount(intent.provider_price.amount, intent.provider_price.currency)],
    ['Status', intent.status],
    ['Delivery', intent.fulfillment_status],
  ];
  for (const [term, value] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    dd.dataset.field = term.toLowerCase();
    list.append(dt, dd);
  }
  for (const element of document.querySelectorAll<HTMLElement>('[data-field="amount"]'))
    element.textContent = formatAmount(intent.provider_price.amount, intent.provider_price.currency);
}

const DELIVERED: Record<Intent['fulfillment_method'], string> = {
  TRANSFER: 'The tokens were sent to your wallet.',
  EMAIL: 'Check your mail: we sent you a link to claim each token.',
  VOUCHER: 'The token was minted to your wallet.',
};

/** The step an intent read from the service calls for. */
function route(intent: Intent) {
  details(intent);
  $('cancel').hidden = intent.status !== 'PENDING';
  switch (intent.status) {
    case 'CANCELLED':
      return show('cancelled');
    case 'EXPIRED':
      return show('expired');
    case 'UNRESOLVED':
      return show('unresolved');
    case 'CONFIRMED':
      if (intent.fulfillment_status === 'COMPLETED') {
        $('delivered-text').textContent = DELIVERED[intent.fulfillment_method];
        return show('delivered');
      }
      if (intent.fulfillment_status === 'EXCEPTION') return show('exception');
      $('delivering-text').textContent =
        intent.fulfillment_method === 'EMAIL'
          ? 'Your purchase is confirmed. We are mailing you a link to claim your token.'
          : 'Your payment is confirmed. The token is on its way to your wallet.';
      return show('delivering');
    case 'PENDING':
      return routePending(intent);
  }
}

function routePending(intent: Intent) {
  if (status.step === 'paying') return; // paid here: waiting for the service to see it
  switch (intent.payment_provider) {
    case 'MINT_VOUCHER': {
      const stored = status.stored;
      if (stored?.tx_hash) {
        $('paying-text').textContent =
          `Your transaction ${stored.tx_hash} was sent. Once it is mined the seller sees it and this page updates by itself.`;
        return show('paying');
      }
      show('pay-wallet');
      if (stored?.autopay) {
        writeStored(intent.id, { ...stored, autopay: false });
        status.stored = { ...stored, autopay: false };
        void sendTransaction();
      }
      return;
    }
    case 'CARD_PROVIDER':
      show('pay-card');
      void mountCard(intent);
      return;
    case 'CRYPTO_PROVIDER': {
      const link = safeUrl((intent.data as CryptoData | null)?.url);
      const anchor = $('crypto-link') as HTMLAnchorElement;
      if (link) anchor.href = link;
      show('pay-crypto');
      return;
    }
    case 'EMAIL_CLAIM':
      return show('delivering');
  }
}

async function readIntent(): Promise<Intent> {
  return requestJson<Intent>('GET', `/v1/public/purchase-intents/${encodeURIComponent(status.intentId)}`, {
    headers: { 'x-client-token': status.stored?.token ?? '' },
  });
}

/** Reads the intent now (then again 1 s later, growing to 5 s) until a final state. */
let delay = 1000;
async function poll(now = false): Promise<void> {
  clearTimeout(status.timer);
  if (!now) {
    status.timer = setTimeout(() => void poll(true), delay);
    delay = Math.min(5000, Math.round(delay * 1.5));
    return;
  }
  try {
    const intent = await readIntent();
    status.intent = intent;
    route(intent);
  } catch (error) {
    if (isFailure(error) && (error.status === 404 || error.status === 401 || error.status === 403)) {
      $('cancel').hidden = true;
      return show('unknown');
    }
    // A blip (no network, a 5xx, a rate limit): keep following, a little slower.
    if (!(isFailure(error) && (error.status === 0 || error.status === 429 || error.status >= 500))) {
      $('error-detail').textContent = failureText(error);
      return show('error');
    }
  }
  if (status.step === null || !TERMINAL.has(status.step)) void poll();
}

async function cancel(): Promise<void> {
  const button = $('cancel') as HTMLButtonElement;
  button.disabled = true;
  announce('Cancelling…');
  try {
    await requestJson('DELETE', `/v1/public/purchase-intents/${encodeURIComponent(status.intentId)}`, {
      headers: { 'x-client-token': status.stored?.token ?? '' },
    });
  } catch (error) {
    // Already paid, expired or cancelled: the intent read below says which.
    if (!(isFailure(error) && error.code === 'INVALID_STATE')) announce(`Error: ${failureText(error)}`);
  } finally {
    button.disabled = false;
  }
  status.step = status.step === 'paying' ? null : status.step;
  void poll(true);
}

export function startStatus() {
  $('send-tx').addEventListener('click', () => void sendTransaction());
  $('card-form').addEventListener(
    'submit',
    (e) => void onCardSubmit(e as SubmitEvent, () => void poll(true)),
  );
  $('cancel').addEventListener('click', () => void cancel());
  $('retry').addEventListener('click', () => {
    status.step = null;
    void poll(true);
  });
  status.stored = readStored(status.intentId);
  if (!status.intentId || !status.stored) return show('unknown');
  show('loading', 'Loading your purchase…');
  void poll(true);
}
