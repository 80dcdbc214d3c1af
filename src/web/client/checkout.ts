import { encodeFunctionData, getAddress, type Hex, parseAbi, toHex } from 'viem';
import { checkAddress } from './address.ts';
import { isFailure, requestJson } from './api.ts';
import { $, announce, input, setError } from './dom.ts';

/**
 * The hosted checkout's script (bundled by src/web/assets.ts), for both of its pages: the form
 * (`/checkout/{listing_id}`) creates the purchase intent through the public API, and the status
 * page (`/checkout/{listing_id}/status?intent=…`) pays it with the provider the buyer chose and
 * follows it to delivery. The page never confirms a sale itself: the service does, from the
 * provider's event or the redemption seen on chain. The intent's client_token stays in this tab's
 * sessionStorage. Text goes in with textContent, never as markup.
 */

type Provider = 'CARD_PROVIDER' | 'CRYPTO_PROVIDER' | 'MINT_VOUCHER' | 'EMAIL_CLAIM';
type IntentStatus = 'PENDING' | 'CONFIRMED' | 'EXPIRED' | 'CANCELLED' | 'UNRESOLVED';
type FulfillmentStatus = 'PENDING' | 'ASSIGNED' | 'COMPLETED' | 'EXCEPTION';

interface Listing {
  id: string;
  status: string;
  network_id: number | null;
  contract_address: string | null;
  price: string;
  currency: string;
  max_quantity_per_tx: number;
  payment_providers: Provider[];
}

interface VoucherData {
  contract: string;
  minter: string;
  network_id: number;
  signature: string;
  voucher: Record<string, string>;
}

interface CardData {
  account_id: string;
  client_secret: string;
  publishable_key: string;
}

interface CryptoData {
  url: string;
}

interface Intent {
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

interface Created {
  id: string;
  client_token: string;
  data: Record<string, unknown> | null;
}

/** An EIP-1193 provider, as browser wallets inject it. */
interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** The part of Stripe.js this page uses. */
interface StripeJs {
  elements(options: { clientSecret: string }): StripeElements;
  confirmPayment(options: {
    elements: StripeElements;
    redirect: 'if_required';
    confirmParams: { return_url: string };
  }): Promise<{ error?: { message?: string; type?: string } }>;
}
interface StripeElements {
  create(type: 'payment'): { mount(target: string | HTMLElement): void };
}
type StripeConstructor = (key: string, options: { stripeAccount: string }) => StripeJs;

declare global {
  interface Window {
    ethereum?: Eip1193;
    Stripe?: StripeConstructor;
  }
}

const ZERO_ADDRESS = /^0x0{40}$/i;
const MINT_ABI = parseAbi([
  'struct MintVoucher { address minter; uint256 tokenId; uint256 quantity; uint256 price; address currency; address netRecipient; address feeRecipient; uint256 feeAmount; uint256 nonce; uint256 expiry; }',
  'function mintWithVoucher(MintVoucher voucher, bytes signature) payable',
]);
const STRIPE_JS = 'https://js.stripe.com/v3';

const main = document.querySelector<HTMLElement>('main.checkout');
const listingId = main?.dataset.listingId ?? '';

/** An API error as a buyer can act on it. */
export function failureText(error: unknown): string {
  if (!isFailure(error)) return 'the page met an unexpected problem. Reload it and try again.';
  switch (error.code) {
    case 'NETWORK':
      return 'the service could not be reached. Check your connection and try again.';
    case 'NOT_ELIGIBLE':
      return `you cannot buy from this sale (${error.detail}).`;
    case 'INSUFFICIENT_SUPPLY':
      return 'not enough units are left for this quantity. Choose fewer, or try again in a few minutes: units held by unpaid purchases come back when those expire.';
    case 'RATE_LIMITED':
      return `too many attempts. Try again in ${error.retryAfter ?? 60} seconds.`;
    case 'UPSTREAM_FAILED':
      return 'the payment provider could not be reached. Nothing was charged; try again in a moment.';
    case 'VALIDATION_FAILED':
      return `the service refused these details (${error.detail}).`;
    case 'NOT_FOUND':
      return 'this sale or purchase no longer exists.';
    case 'INVALID_STATE':
      return `this cannot be done now (${error.detail}).`;
    default:
      return error.status >= 500
        ? `the service had a problem (${error.detail}). Nothing was charged; try again in a moment.`
        : `the service refused (${error.detail}).`;
  }
}

/** A wallet's refusal (EIP-1193 error codes) in words. */
function walletText(error: unknown): string {
  const code = (error as { code?: number } | null)?.code;
  const message = (error as { message?: string } | null)?.message;
  if (code === 4001) return 'you declined the request in your wallet.';
  if (code === 4902) return 'your wallet does not know this network: add it to your wallet, then try again.';
  return `your wallet refused${message ? ` (${message})` : ''}.`;
}

/** An amount in its currency: fiat in cents, ETH in wei; anything else in its smallest unit. */
function formatAmount(amount: string, currency: string): string {
  const value = BigInt(amount);
  const cents = () => `${value / 100n}.${(value % 100n).toString().padStart(2, '0')}`;
  if (currency === 'USD') return `$${cents()}`;
  if (currency === 'EUR') return `€${cents()}`;
  if (currency === 'ETH') {
    const whole = value / 10n ** 18n;
    const fraction = (value % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
    return `${whole}${fraction ? `.${fraction}` : ''} ETH`;
  }
  return `${amount} (smallest units of ${currency})`;
}

const storageKey = (intentId: string) => `checkout:${intentId}`;
interface Stored {
  token: string;
  /** The listing it buys from: its checkout offers to follow the purchase again. */
  listing?: string;
  /** Set by the form: the status page starts the wallet's transaction at once. */
  autopay?: boolean;
  /** The redeem transaction sent, so a reload does not offer to send it again. */
  tx_hash?: string;
}
function readStored(intentId: string): Stored | null {
  try {
    const text = sessionStorage.getItem(storageKey(intentId));
    return text ? (JSON.parse(text) as Stored) : null;
  } catch {
    return null;
  }
}
function writeStored(intentId: string, stored: Stored): void {
  sessionStorage.setItem(storageKey(intentId), JSON.stringify(stored));
}
const statusUrl = (intentId: string) =>
  `${location.origin}/checkout/${encodeURIComponent(listingId)}/status?intent=${encodeURIComponent(intentId)}`;

// --- the wallet ------------------------------------------------------------------------------

function wallet(): Eip1193 {
  if (!window.ethereum)
    throw new WalletMissing(
      'no browser wallet was found. Install a wallet extension, or choose another way to pay.',
    );
  return window.ethereum;
}
class WalletMissing extends Error {}

/** The wallet's account, on `networkId` (asking the wallet to switch when it is elsewhere). */
async function connect(networkId: number): Promise<`0x${string}`> {
  const eth = wallet();
  const accounts = (await eth.request({ method: 'eth_requestAccounts' })) as string[];
  if (!accounts?.[0]) throw new WalletMissing('the wallet gave no account.');
  const current = Number.parseInt(String(await eth.request({ method: 'eth_chainId' })), 16);
  if (current !== networkId) {
    await eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: toHex(networkId) }] });
    const now = Number.parseInt(String(await eth.request({ method: 'eth_chainId' })), 16);
    if (now !== networkId)
      throw new WalletMissing(`switch your wallet to network ${networkId}, then try again.`);
  }
  return getAddress(accounts[0]);
}

// --- the form --------------------------------------------------------------------------------

const form = {
  listing: null as Listing | null,
  /** One key per attempt: a double click or a retry after a lost answer never holds twice. */
  idempotencyKey: null as string | null,
  busy: false,
};

function provider(): Provider {
  return (document.querySelector<HTMLInputElement>('input[name="provider"]:checked')?.value ??
    'EMAIL_CLAIM') as Provider;
}

function showProviderFields(): void {
  const chosen = provider();
  $('email-field').hidden = chosen === 'MINT_VOUCHER';
  $('address-field').hidden = chosen === 'MINT_VOUCHER' || chosen === 'EMAIL_CLAIM';
  $('wallet-note').hidden = chosen !== 'MINT_VOUCHER';
  $('email-hint').textContent =
    chosen === 'EMAIL_CLAIM'
      ? 'We mail you a link to claim your token.'
      : 'Give your email or your wallet address: with an address the token is sent to it, otherwise you get a claim link by email.';
  $('buy').textContent =
    chosen === 'MINT_VOUCHER'
      ? 'Connect my wallet and buy'
      : chosen === 'EMAIL_CLAIM'
        ? 'Claim by email'
        : 'Continue to payment';
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The form's values, or null after marking what is wrong (focus on the first problem). */
function readForm(): { quantity: number; email?: string; address?: `0x${string}` } | null {
  const chosen = provider();
  const max = form.listing?.max_quantity_per_tx ?? Number(input('quantity').max);
  const problems: [string, string, HTMLElement][] = [];
  const quantityField = input('quantity');
  const quantity = Number(quantityField.value.trim());
  const quantityProblem =
    Number.isInteger(quantity) && quantity >= 1 && quantity <= max
      ? null
      : `the quantity is a whole number from 1 to ${max}.`;
  setError('quantity-error', quantityProblem, quantityField);
  if (quantityProblem) problems.push(['quantity-error', quantityProblem, quantityField]);

  const emailField = input('email');
  const addressField = input('address');
  const email = chosen === 'MINT_VOUCHER' ? '' : emailField.value.trim();
  const addressText = chosen === 'MINT_VOUCHER' || chosen === 'EMAIL_CLAIM' ? '' : addressField.value.trim();
  let emailProblem: string | null = null;
  let addressProblem: string | null = null;
  if (email && !EMAIL.test(email)) emailProblem = 'this is not an email address (name@example.com).';
  if (chosen === 'EMAIL_CLAIM' && !email) emailProblem = 'give the email to send the claim to.';
  let address: `0x${string}` | undefined;
  if (addressText) {
    const checked = checkAddress(addressText);
    if ('error' in checked) addressProblem = checked.error;
    else address = checked.address;
  }
  if ((chosen === 'CARD_PROVIDER' || chosen === 'CRYPTO_PROVIDER') && !email && !addressText)
    emailProblem = 'give your email or your wallet address.';
  setError('email-error', emailProblem, emailField);
  setError('address-error', addressProblem, addressField);
  if (emailProblem) problems.push(['email-error', emailProblem, emailField]);
  if (addressProblem) problems.push(['address-error', addressProblem, addressField]);
  if (problems.length > 0) {
    const [, text, field] = problems[0]!;
    announce(`Error: ${text}`);
    field.focus();
    return null;
  }
  if (address) addressField.value = address;
  return { quantity, ...(email ? { email } : {}), ...(address ? { address } : {}) };
}

function formError(text: string | null): void {
  setError('form-error', text);
  // Read out by the live region; shown once, under the form.
  if (text) announce(`Error: ${text}`, true);
}

async function onSubmit(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (form.busy) return;
  formError(null);
  const values = readForm();
  if (!values) return;
  const chosen = provider();
  const listing = form.listing;
  const button = $('buy') as HTMLButtonElement;
  form.busy = true;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    const buyer: { email?: string; eth_address?: string } = {};
    if (chosen === 'MINT_VOUCHER') {
      if (!listing || listing.network_id === null) throw new WalletMissing('this sale has no network yet.');
      if (listing.currency !== 'ETH') {
        formError(
          `paying in ${listing.currency} (an ERC-20 token) needs a token approval before minting, which this page does not do. Choose another way to pay if there is one.`,
        );
        return;
      }
      announce('Connecting to your wallet…');
      buyer.eth_address = await connect(listing.network_id);
    } else {
      if (values.email) buyer.email = values.email;
      if (values.address) buyer.eth_address = values.address;
    }
    announce('Reserving your purchase…');
    form.idempotencyKey ??= crypto.randomUUID();
    let created: Created;
    try {
      created = await requestJson<Created>('POST', '/v1/public/purchase-intents', {
        body: { listing_id: listingId, quantity: values.quantity, provider: chosen, buyer },
        headers: { 'idempotency-key': form.idempotencyKey },
      });
    } catch (error) {
      // An answer means nothing was held: the next attempt is a new one. A lost answer keeps
      // the key, so trying again returns the purchase the first attempt may have made.
      if (!isFailure(error) || error.code !== 'NETWORK') form.idempotencyKey = null;
      throw error;
    }
    writeStored(created.id, {
      token: created.client_token,
      listing: listingId,
      autopay: chosen === 'MINT_VOUCHER',
    });
    const url = statusUrl(created.id);
    if (chosen === 'CRYPTO_PROVIDER') {
      const link = safeUrl((created.data as CryptoData | null)?.url);
      if (link) {
        announce('Taking you to the payment page…');
        location.assign(link);
        return;
      }
    }
    location.assign(url);
  } catch (error) {
    formError(
      error instanceof WalletMissing
        ? error.message
        : isFailure(error)
          ? failureText(error)
          : walletText(error),
    );
  } finally {
    form.busy = false;
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

function safeUrl(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  try {
    const url = new URL(text, location.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The newest purchase made from this checkout in this tab (back from a payment page). */
function resumeLink(): void {
  let latest: string | null = null;
  for (let i = 0; i < sessionStorage.length; i++) {
    const key = sessionStorage.key(i);
    const id = key?.startsWith('checkout:') ? key.slice('checkout:'.length) : null;
    // Intent ids are UUIDv7: a later one sorts after.
    if (id && readStored(id)?.listing === listingId && (latest === null || id > latest)) latest = id;
  }
  if (latest === null) return;
  ($('resume-link') as HTMLAnchorElement).href = statusUrl(latest);
  $('resume').hidden = false;
}

async function startCheckout(): Promise<void> {
  resumeLink();
  const formElement = document.getElementById('checkout-form');
  if (!formElement) return; // the sale is closed: the page says why
  for (const radio of document.querySelectorAll('input[name="provider"]'))
    radio.addEventListener('change', showProviderFields);
  // Any change makes the next submission a new attempt.
  formElement.addEventListener('input', () => {
    form.idempotencyKey = null;
  });
  formElement.addEventListener('submit', (e) => void onSubmit(e as SubmitEvent));
  showProviderFields();
  try {
    form.listing = await requestJson<Listing>('GET', `/v1/public/listings/${encodeURIComponent(listingId)}`);
  } catch (error) {
    formError(failureText(error));
  }
}

// --- the status page -------------------------------------------------------------------------

type Step =
  | 'loading'
  | 'unknown'
  | 'pay-wallet'
  | 'pay-card'
  | 'pay-crypto'
  | 'paying'
  | 'delivering'
  | 'delivered'
  | 'expired'
  | 'cancelled'
  | 'unresolved'
  | 'exception'
  | 'error';

const TERMINAL: ReadonlySet<Step> = new Set([
  'delivered',
  'expired',
  'cancelled',
  'unresolved',
  'exception',
  'unknown',
]);

const status = {
  intentId: new URLSearchParams(location.search).get('intent') ?? '',
  stored: null as Stored | null,
  intent: null as Intent | null,
  step: null as Step | null,
  stripe: null as { stripe: StripeJs; elements: StripeElements } | null,
  sending: false,
  timer: undefined as ReturnType<typeof setTimeout> | undefined,
};

function show(step: Step, message?: string): void {
  if (status.step === step) return;
  status.step = step;
  for (const section of document.querySelectorAll<HTMLElement>('section[data-step]'))
    section.hidden = section.dataset.step !== step;
  main?.setAttribute('data-state', step);
  const heading = document.getElementById(`step-${step}`);
  announce(message ?? heading?.textContent ?? '', message === undefined);
  heading?.focus();
}

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

/** The wallet sends mintWithVoucher with the voucher, paying its price in the native coin. */
async function sendTransaction(): Promise<void> {
  const intent = status.intent;
  if (!intent || status.sending) return;
  const data = intent.data as VoucherData | null;
  const button = $('send-tx') as HTMLButtonElement;
  const problem = (text: string) => {
    announce(`Error: ${text}`);
  };
  if (!data?.voucher) return problem('this purchase has no voucher.');
  const v = data.voucher;
  if (!ZERO_ADDRESS.test(v.currency ?? '')) {
    return problem(
      'this voucher is paid in an ERC-20 token, which needs an approval first: this page does not do that.',
    );
  }
  status.sending = true;
  button.disabled = true;
  try {
    announce('Confirm the transaction in your wallet…');
    const from = await connect(data.network_id);
    if (from !== getAddress(data.minter)) {
      return problem(`the voucher is for the account ${getAddress(data.minter)}: switch your wallet to it.`);
    }
    const calldata = encodeFunctionData({
      abi: MINT_ABI,
      functionName: 'mintWithVoucher',
      args: [
        {
          minter: getAddress(data.minter),
          tokenId: BigInt(v.token_id!),
          quantity: BigInt(v.quantity!),
          price: BigInt(v.price!),
          currency: getAddress(v.currency!),
          netRecipient: getAddress(v.net_recipient!),
          feeRecipient: getAddress(v.initial_recipient!),
          feeAmount: BigInt(v.initial_recipient_amount!),
          nonce: BigInt(v.nonce!),
          expiry: BigInt(v.expiry!),
        },
        data.signature as Hex,
      ],
    });
    const hash = String(
      await wallet().request({
        method: 'eth_sendTransaction',
        params: [{ from, to: getAddress(data.contract), data: calldata, value: toHex(BigInt(v.price!)) }],
      }),
    );
    status.stored = { ...(status.stored ?? { token: '' }), tx_hash: hash };
    writeStored(intent.id, status.stored);
    $('paying-text').textContent =
      `Your transaction ${hash} was sent. Once it is mined the seller sees it and this page updates by itself.`;
    show('paying');
  } catch (error) {
    problem(error instanceof WalletMissing ? error.message : walletText(error));
  } finally {
    status.sending = false;
    button.disabled = false;
  }
}

function loadStripe(): Promise<StripeConstructor> {
  if (window.Stripe) return Promise.resolve(window.Stripe);
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = STRIPE_JS;
    script.addEventListener('load', () =>
      window.Stripe ? resolve(window.Stripe) : reject(new Error('Stripe.js did not load')),
    );
    script.addEventListener('error', () => reject(new Error('Stripe.js could not be loaded')));
    document.head.append(script);
  });
}

/** Stripe's Payment Element for the intent's PaymentIntent, on the seller's connected account. */
async function mountCard(intent: Intent): Promise<void> {
  if (status.stripe) return;
  const data = intent.data as CardData | null;
  if (!data?.client_secret) return setError('card-error', 'this purchase has no card payment.');
  try {
    const Stripe = await loadStripe();
    const stripe = Stripe(data.publishable_key, { stripeAccount: data.account_id });
    const elements = stripe.elements({ clientSecret: data.client_secret });
    elements.create('payment').mount('#payment-element');
    status.stripe = { stripe, elements };
  } catch {
    setError('card-error', 'the card form could not be loaded. Check your connection and reload the page.');
  }
}

async function onCardSubmit(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const loaded = status.stripe;
  if (!loaded || status.sending) return;
  const button = $('card-pay') as HTMLButtonElement;
  status.sending = true;
  button.disabled = true;
  setError('card-error', null);
  announce('Paying…');
  try {
    const { error } = await loaded.stripe.confirmPayment({
      elements: loaded.elements,
      redirect: 'if_required',
      confirmParams: { return_url: statusUrl(status.intentId) },
    });
    if (error) {
      // Declined or incomplete: the purchase stays payable, with another card or a new try.
      const text = `${error.message ?? 'the payment did not go through.'} You can try again.`;
      setError('card-error', text);
      announce(`Error: ${text}`, true);
      return;
    }
    $('paying-text').textContent = 'Your payment went through. Waiting for the seller to confirm it…';
    show('paying');
    void poll(true);
  } catch {
    setError('card-error', 'the payment could not be sent. Check your connection and try again.');
  } finally {
    status.sending = false;
    button.disabled = false;
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

function startStatus() {
  $('send-tx').addEventListener('click', () => void sendTransaction());
  $('card-form').addEventListener('submit', (e) => void onCardSubmit(e as SubmitEvent));
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

if (typeof document !== 'undefined' && main) {
  if (main.dataset.page === 'status') startStatus();
  else void startCheckout();
}
