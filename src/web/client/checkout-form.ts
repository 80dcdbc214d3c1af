import { checkAddress } from './address.ts';
import { isFailure, requestJson } from './api.ts';
import {
  type Created,
  type CryptoData,
  type Listing,
  listingId,
  type Provider,
  readStored,
  safeUrl,
  statusUrl,
  writeStored,
} from './checkout-intent.ts';
import { failureText, walletText } from './checkout-text.ts';
import { connect, WalletMissing } from './checkout-wallet.ts';
import { $, announce, input, setError } from './dom.ts';

/**
 * The checkout form (`/checkout/{listing_id}`): checks what the buyer typed, connects the wallet
 * for a mint voucher, creates the purchase intent through the public API and goes on to its
 * status page (or the crypto provider's payment page).
 */

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

export async function startCheckout(): Promise<void> {
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
