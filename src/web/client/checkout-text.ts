import { isFailure } from './api.ts';

/** The checkout's words for what went wrong, and its amounts as a buyer reads them. */

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
export function walletText(error: unknown): string {
  const code = (error as { code?: number } | null)?.code;
  const message = (error as { message?: string } | null)?.message;
  if (code === 4001) return 'you declined the request in your wallet.';
  if (code === 4902) return 'your wallet does not know this network: add it to your wallet, then try again.';
  return `your wallet refused${message ? ` (${message})` : ''}.`;
}

/** An amount in its currency: fiat in cents, ETH in wei; anything else in its smallest unit. */
export function formatAmount(amount: string, currency: string): string {
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
