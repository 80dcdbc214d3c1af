import { english, generateMnemonic, mnemonicToAccount } from 'viem/accounts';
import { checkAddress } from './address.ts';
import { isFailure, requestJson } from './api.ts';
import { $, announce, input, setError } from './dom.ts';
import { encryptKeystore } from './keystore.ts';

/**
 * The claim page's script (bundled by src/web/assets.ts). It runs the claim through the service's
 * public routes only, `/v1/public/email-claims/{token}` (docs/api.md#email-claims): read, send the
 * PIN, redeem, then follow the delivery. A wallet created here never leaves the browser: only its
 * address is sent. Text goes in with textContent, never as markup.
 */

type ClaimStatus = 'ACTIVE' | 'CLAIMED' | 'EXPIRED' | 'REVOKED';
type DeliveryState = 'PENDING' | 'SUBMITTED' | 'COMPLETED' | 'FAILED';

interface Delivery {
  transaction_id: string;
  state: DeliveryState;
  tx_hash: string | null;
  to_address: string | null;
  token_id: string | null;
  network_id: number | null;
  contract_address: string | null;
}

interface Claim {
  status: ClaimStatus;
  expiration: string;
  tx_payer: 'SELLER' | 'BUYER';
  item: {
    name: string | null;
    image: string | null;
    collection_name: string | null;
    token_id: string | null;
  };
  email_hint: string;
  pin: null | { sent_at: string; expires_at: string; tries_left: number };
  delivery: Delivery | null;
  voucher: unknown;
}

type Step =
  | 'loading'
  | 'invalid'
  | 'expired'
  | 'revoked'
  | 'claimed'
  | 'request-pin'
  | 'enter-pin'
  | 'destination'
  | 'wallet'
  | 'minting'
  | 'done'
  | 'failed'
  | 'voucher'
  | 'error';

const REOPENED =
  'The last delivery of this token failed, so the claim is open again. Ask for a new code to claim it.';
const BURNED = 'That code was entered wrong too many times and no longer works. Ask for a new one.';

/** A new PIN may be asked for once a minute (docs/api.md#email-claims). */
const RESEND_AFTER_MS = 60_000;

const token = new URLSearchParams(location.search).get('token') ?? '';
const base = `/v1/public/email-claims/${encodeURIComponent(token)}`;

const state: {
  claim: Claim | null;
  /** When the last PIN mail was sent (ms), to tell when another may be asked for. */
  pinSentAt: number | null;
  /** The PIN typed, kept until the redeem answers. */
  pin: string;
  /** The chosen destination, kept if the PIN proves wrong. */
  address: string | null;
} = { claim: null, pinSentAt: null, pin: '', address: null };

function show(step: Step, message?: string): void {
  for (const section of document.querySelectorAll<HTMLElement>('section[data-step]'))
    section.hidden = section.dataset.step !== step;
  document.querySelector('main')?.setAttribute('data-state', step);
  const heading = document.getElementById(`step-${step}`);
  announce(message ?? heading?.textContent ?? '', true);
  heading?.focus();
}

function fill(field: string, text: string): void {
  for (const element of document.querySelectorAll<HTMLElement>(`[data-field="${field}"]`))
    element.textContent = text;
}

function details(id: string, rows: [string, string | number | null | undefined][]): void {
  const list = $(id);
  list.replaceChildren();
  for (const [term, value] of rows) {
    if (value === null || value === undefined || value === '') continue;
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = String(value);
    list.append(dt, dd);
  }
}

function api<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  return requestJson<T>(method, `${base}${path}`, { body });
}

function fail(error: unknown): void {
  $('error-detail').textContent = isFailure(error)
    ? `The service could not answer (${error.detail}). Check your connection and try again.`
    : 'The page met an unexpected problem. Reload it and try again.';
  show('error');
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text, location.href);
  } catch {
    return null;
  }
}

/** Artwork served by this service (or inline) is shown; elsewhere it is a link, never loaded. */
function renderItem(claim: Claim): void {
  const { item } = claim;
  $('item').hidden = false;
  $('item-name').textContent = item.name ?? 'Your token';
  $('item-collection').textContent = item.collection_name ? `Collection: ${item.collection_name}` : '';
  $('item-token').hidden = item.token_id === null;
  $('item-token').textContent = item.token_id === null ? '' : `Token #${item.token_id}`;
  const image = $('item-image') as HTMLImageElement;
  const link = $('item-image-link');
  image.hidden = true;
  link.hidden = true;
  if (item.image) {
    const url = parseUrl(item.image);
    if (url === null) {
      // Not a URL: nothing to show.
    } else if (url.protocol === 'data:' || url.origin === location.origin) {
      image.src = url.href;
      image.alt = item.name ? `Artwork of ${item.name}` : 'Artwork of the token';
      image.hidden = false;
    } else if (url.protocol === 'https:' || url.protocol === 'http:') {
      link.querySelector('a')?.setAttribute('href', url.href);
      link.hidden = false;
    }
  }
  const expiration = new Date(claim.expiration);
  $('item-expiration').textContent =
    claim.status === 'ACTIVE' ? `Claim it before ${expiration.toLocaleString()}.` : '';
  fill('email_hint', claim.email_hint);
}

async function load(): Promise<void> {
  show('loading', 'Loading your claim…');
  if (!/^[A-Za-z0-9_-]{16,}$/.test(token)) return show('invalid');
  let claim: Claim;
  try {
    claim = await api<Claim>('GET', '');
  } catch (error) {
    if (isFailure(error) && (error.status === 404 || error.status === 400)) return show('invalid');
    return fail(error);
  }
  state.claim = claim;
  renderItem(claim);
  route(claim);
}

/** The step a claim read from the service calls for. */
function route(claim: Claim): void {
  switch (claim.status) {
    case 'EXPIRED':
      show('expired');
      break;
    case 'REVOKED':
      show('revoked');
      break;
    case 'CLAIMED':
      showClaimed(claim);
      break;
    case 'ACTIVE': {
      const pin = claim.pin;
      if (pin) state.pinSentAt = Date.parse(pin.sent_at);
      if (pin && pin.tries_left > 0 && Date.parse(pin.expires_at) > Date.now()) showEnterPin();
      else if (claim.delivery?.state === 'FAILED') showRequestPin(REOPENED);
      else if (pin === null) showRequestPin(null);
      else if (pin.tries_left <= 0) showRequestPin(BURNED);
      else showRequestPin('Your last code has expired. Ask for a new one.');
      break;
    }
  }
}

function showClaimed(claim: Claim): void {
  const delivery = claim.delivery;
  if (claim.voucher) {
    showVoucher(claim.voucher);
    return;
  }
  $('claimed-text').textContent = delivery
    ? deliveryText(delivery.state)
    : 'Someone with this link has already claimed the token.';
  details('claimed-details', deliveryRows(delivery));
  show('claimed');
  if (delivery && (delivery.state === 'PENDING' || delivery.state === 'SUBMITTED')) void follow('claimed');
}

function deliveryText(deliveryState: DeliveryState): string {
  switch (deliveryState) {
    case 'PENDING':
      return 'The token was claimed and is waiting to be sent.';
    case 'SUBMITTED':
      return 'The token was claimed; its transaction is on the network, waiting for confirmation.';
    case 'COMPLETED':
      return 'The token was claimed and delivered.';
    case 'FAILED':
      return 'The token was claimed but its delivery failed. Contact the sender, quoting the transaction id.';
  }
}

function deliveryRows(delivery: Delivery | null): [string, string | number | null][] {
  if (!delivery) return [];
  return [
    ['Delivered to', delivery.to_address],
    ['Token id', delivery.token_id],
    ['Transaction hash', delivery.tx_hash],
    ['Contract', delivery.contract_address],
    ['Network', delivery.network_id],
    ['Transaction id', delivery.transaction_id],
  ];
}

// --- the PIN ---------------------------------------------------------------------------------

let countdown: ReturnType<typeof setInterval> | undefined;

/** Seconds before another PIN may be asked for. */
function waitSeconds(): number {
  if (state.pinSentAt === null) return 0;
  return Math.max(0, Math.ceil((state.pinSentAt + RESEND_AFTER_MS - Date.now()) / 1000));
}

/** Disables the button while a new code may not be asked for, saying how long in words. */
function holdResend(button: HTMLButtonElement, label: HTMLElement): void {
  clearInterval(countdown);
  const tick = () => {
    const seconds = waitSeconds();
    button.disabled = seconds > 0;
    label.hidden = seconds === 0;
    label.textContent = seconds > 0 ? `You can ask for a new code in ${seconds} s.` : '';
    if (seconds === 0) clearInterval(countdown);
  };
  tick();
  countdown = setInterval(tick, 1000);
}

function showRequestPin(notice: string | null): void {
  $('pin-burned').hidden = notice === null;
  $('pin-burned').textContent = notice ?? '';
  show('request-pin', notice ?? undefined);
  holdResend($('send-pin') as HTMLButtonElement, $('send-wait'));
}

function showEnterPin(error?: string): void {
  const pin = input('pin');
  pin.value = '';
  setError('pin-error', error ?? null, pin);
  $('pin-submit').textContent = state.address ? 'Claim' : 'Continue';
  show('enter-pin', error ? `Error: ${error}` : undefined);
  if (error) pin.focus();
  holdResend($('resend-pin') as HTMLButtonElement, $('resend-wait'));
}

async function sendPin(button: HTMLButtonElement): Promise<void> {
  button.disabled = true;
  announce('Sending the code…');
  try {
    await api('POST', '/verify');
    state.pinSentAt = Date.now();
    showEnterPin();
    announce(`We sent a code to ${state.claim?.email_hint ?? 'your email'}.`);
  } catch (error) {
    if (isFailure(error) && error.code === 'RATE_LIMITED') {
      state.pinSentAt = Date.now() - RESEND_AFTER_MS + (error.retryAfter ?? 60) * 1000;
      holdResend(button, button.id === 'send-pin' ? $('send-wait') : $('resend-wait'));
      announce(`A code was sent less than a minute ago. You can ask again in ${waitSeconds()} s.`);
      return;
    }
    if (isFailure(error) && error.code === 'INVALID_STATE') return void load();
    button.disabled = false;
    fail(error);
  }
}

function onPinSubmit(event: SubmitEvent): void {
  event.preventDefault();
  const field = input('pin');
  const pin = field.value.replace(/\s/g, '');
  if (!/^\d{6}$/.test(pin)) {
    setError('pin-error', 'the code is the 6 digits from the mail.', field);
    announce('Error: the code is the 6 digits from the mail.');
    field.focus();
    return;
  }
  setError('pin-error', null, field);
  state.pin = pin;
  if (state.address) return void redeem(state.address);
  showDestination();
}

// --- the destination -------------------------------------------------------------------------

function showDestination(): void {
  $('buyer-note').hidden = state.claim?.tx_payer !== 'BUYER';
  chooseDestination();
  show('destination');
}

function chooseDestination(): void {
  const create = document.querySelector<HTMLInputElement>('input[name="destination"][value="create"]');
  $('address-form').hidden = Boolean(create?.checked);
  $('create-panel').hidden = !create?.checked;
}

function onAddressSubmit(event: SubmitEvent): void {
  event.preventDefault();
  const field = input('address');
  const checked = checkAddress(field.value);
  if ('error' in checked) {
    setError('address-error', checked.error, field);
    announce(`Error: ${checked.error}`);
    field.focus();
    return;
  }
  setError('address-error', null, field);
  field.value = checked.address;
  void redeem(checked.address);
}

let createdKey: `0x${string}` | null = null;

function createWallet(): void {
  const mnemonic = generateMnemonic(english);
  const account = mnemonicToAccount(mnemonic);
  const key = account.getHdKey().privateKey;
  if (!key) throw new Error('no private key derived');
  createdKey = `0x${Array.from(key, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  $('wallet-address').textContent = account.address;
  const list = $('phrase');
  list.replaceChildren(
    ...mnemonic.split(' ').map((word) => {
      const li = document.createElement('li');
      li.textContent = word;
      return li;
    }),
  );
  state.address = account.address;
  show('wallet', 'Your wallet is ready. Save its recovery phrase now.');
}

async function onKeystoreSubmit(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const password = input('keystore-password');
  const confirm = input('keystore-confirm');
  const problem =
    password.value.length < 8
      ? 'the password needs at least 8 characters.'
      : password.value !== confirm.value
        ? 'the two passwords differ.'
        : null;
  setError('keystore-error', problem, problem && password.value.length < 8 ? password : confirm);
  if (problem || !createdKey || !state.address) {
    if (problem) announce(`Error: ${problem}`);
    return;
  }
  const button = $('keystore-download') as HTMLButtonElement;
  button.disabled = true;
  announce('Encrypting the keystore… this takes a few seconds.');
  try {
    const keystore = await encryptKeystore(createdKey, password.value);
    const name = `UTC--${new Date().toISOString().replace(/:/g, '-')}--${keystore.address}.json`;
    download(name, JSON.stringify(keystore));
    announce('The encrypted keystore was downloaded. Keep its password: it cannot be recovered.');
  } finally {
    button.disabled = false;
  }
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function onSavedSubmit(event: SubmitEvent): void {
  event.preventDefault();
  const saved = input('saved');
  if (!saved.checked) {
    setError('saved-error', 'confirm that you saved the recovery phrase first.', saved);
    announce('Error: confirm that you saved the recovery phrase first.');
    saved.focus();
    return;
  }
  setError('saved-error', null, saved);
  // Shown once: the phrase and key leave the page before anything is sent.
  $('phrase').replaceChildren();
  createdKey = null;
  if (state.address) void redeem(state.address);
}

// --- redeem and follow -----------------------------------------------------------------------

interface Redeemed {
  status: 'CLAIMED';
  transaction_id: string | null;
  voucher: unknown;
}

async function redeem(address: string): Promise<void> {
  state.address = address;
  announce('Claiming…');
  try {
    const redeemed = await api<Redeemed>('POST', '/redeem', { address, pin: state.pin });
    state.pin = '';
    if (redeemed.voucher) return showVoucher(redeemed.voucher);
    fill('to_address', address);
    $('minting-state').textContent = 'Waiting for the transaction to be sent…';
    show('minting');
    await follow('minting');
  } catch (error) {
    if (!isFailure(error)) return fail(error);
    if (error.code === 'INVALID_CREDENTIALS') return wrongPin(error.detail);
    if (error.code === 'INVALID_STATE' || error.status === 404) return void load();
    fail(error);
  }
}

/** A wrong PIN: say how many tries are left, or that a new code is needed. */
async function wrongPin(detail: string): Promise<void> {
  let claim: Claim | null = null;
  try {
    claim = await api<Claim>('GET', '');
    state.claim = claim;
  } catch {
    // The answer's own detail still says what happened.
  }
  const tries = claim?.pin?.tries_left;
  if (claim && claim.status !== 'ACTIVE') return route(claim);
  if (tries === 0 || (claim && claim.pin === null)) {
    return showRequestPin(
      'That code was entered wrong too many times and no longer works. Ask for a new one.',
    );
  }
  showEnterPin(
    tries === undefined
      ? `wrong code (${detail}).`
      : `wrong code. ${tries} ${tries === 1 ? 'try' : 'tries'} left.`,
  );
}

/** Polls the claim until its delivery settles: 1 s, then 1.5 times longer each time, at most 10 s. */
async function follow(where: 'minting' | 'claimed'): Promise<void> {
  let delay = 1000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(10_000, Math.round(delay * 1.5));
    let claim: Claim;
    try {
      claim = await api<Claim>('GET', '');
    } catch (error) {
      // A blip (no network, a 5xx, a rate limit): keep following, a little slower.
      if (isFailure(error) && (error.status === 0 || error.status === 429 || error.status >= 500)) continue;
      return fail(error);
    }
    state.claim = claim;
    const delivery = claim.delivery;
    if (claim.voucher) return showVoucher(claim.voucher);
    if (!delivery) continue;
    if (delivery.state === 'COMPLETED') {
      renderItem(claim);
      details('done-details', deliveryRows(delivery));
      return show('done', 'Done: the token is in your wallet.');
    }
    if (delivery.state === 'FAILED') {
      details('failed-details', deliveryRows(delivery));
      return show('failed');
    }
    const text =
      delivery.state === 'SUBMITTED'
        ? 'The transaction is on the network, waiting for confirmation…'
        : 'Waiting for the transaction to be sent…';
    if (where === 'minting') {
      $('minting-state').textContent = delivery.tx_hash ? `${text} (transaction ${delivery.tx_hash})` : text;
    } else {
      $('claimed-text').textContent = deliveryText(delivery.state);
      details('claimed-details', deliveryRows(delivery));
    }
  }
}

function showVoucher(voucher: unknown): void {
  $('voucher-json').textContent = JSON.stringify(voucher, null, 2);
  show('voucher', 'Claimed: here is your mint voucher.');
}

// --- wiring ----------------------------------------------------------------------------------

function start(): void {
  $('send-pin').addEventListener('click', (e) => void sendPin(e.currentTarget as HTMLButtonElement));
  $('resend-pin').addEventListener('click', (e) => void sendPin(e.currentTarget as HTMLButtonElement));
  $('pin-form').addEventListener('submit', onPinSubmit);
  for (const radio of document.querySelectorAll('input[name="destination"]'))
    radio.addEventListener('change', chooseDestination);
  $('address-form').addEventListener('submit', onAddressSubmit);
  $('create-wallet').addEventListener('click', createWallet);
  $('keystore-form').addEventListener('submit', (e) => void onKeystoreSubmit(e as SubmitEvent));
  $('saved-form').addEventListener('submit', onSavedSubmit);
  $('download-voucher').addEventListener('click', () =>
    download('voucher.json', $('voucher-json').textContent ?? ''),
  );
  $('retry').addEventListener('click', () => void load());
  $('claim-again').addEventListener('click', () => {
    state.address = null;
    void load();
  });
  void load();
}

if (typeof document !== 'undefined') start();
