import { type Intent, main, type Stored } from './checkout-intent.ts';
import { announce } from './dom.ts';

/**
 * The status page's state and its steps: one `section[data-step]` shown at a time, the others
 * hidden, the change read out by the live region.
 */

export type Step =
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

export const status = {
  intentId: new URLSearchParams(location.search).get('intent') ?? '',
  stored: null as Stored | null,
  intent: null as Intent | null,
  step: null as Step | null,
  /** A payment on its way (the wallet's transaction or the card's): a second click waits. */
  sending: false,
  timer: undefined as ReturnType<typeof setTimeout> | undefined,
};

export function show(step: Step, message?: string): void {
  if (status.step === step) return;
  status.step = step;
  for (const section of document.querySelectorAll<HTMLElement>('section[data-step]'))
    section.hidden = section.dataset.step !== step;
  main?.setAttribute('data-state', step);
  const heading = document.getElementById(`step-${step}`);
  announce(message ?? heading?.textContent ?? '', message === undefined);
  heading?.focus();
}
