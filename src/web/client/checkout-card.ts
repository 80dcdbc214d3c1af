import { type CardData, type Intent, statusUrl } from './checkout-intent.ts';
import { show, status } from './checkout-steps.ts';
import { $, announce, setError } from './dom.ts';

/**
 * Paying by card on the status page: Stripe.js loaded from Stripe, its Payment Element mounted
 * for the intent's PaymentIntent, and the card form that confirms it.
 */

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
    Stripe?: StripeConstructor;
  }
}

const STRIPE_JS = 'https://js.stripe.com/v3';

/** Stripe.js and the Payment Element, once mounted. */
let mounted: { stripe: StripeJs; elements: StripeElements } | null = null;

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
export async function mountCard(intent: Intent): Promise<void> {
  if (mounted) return;
  const data = intent.data as CardData | null;
  if (!data?.client_secret) return setError('card-error', 'this purchase has no card payment.');
  try {
    const Stripe = await loadStripe();
    const stripe = Stripe(data.publishable_key, { stripeAccount: data.account_id });
    const elements = stripe.elements({ clientSecret: data.client_secret });
    elements.create('payment').mount('#payment-element');
    mounted = { stripe, elements };
  } catch {
    setError('card-error', 'the card form could not be loaded. Check your connection and reload the page.');
  }
}

/** Confirms the payment; once it went through, `paid` follows the intent to its confirmation. */
export async function onCardSubmit(event: SubmitEvent, paid: () => void): Promise<void> {
  event.preventDefault();
  const loaded = mounted;
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
    paid();
  } catch {
    setError('card-error', 'the payment could not be sent. Check your connection and try again.');
  } finally {
    status.sending = false;
    button.disabled = false;
  }
}
