import { startCheckout } from './checkout-form.ts';
import { main } from './checkout-intent.ts';
import { startStatus } from './checkout-status.ts';

/**
 * The hosted checkout's script (bundled by src/web/assets.ts), for both of its pages: the form
 * (`/checkout/{listing_id}`, checkout-form.ts) creates the purchase intent through the public API,
 * and the status page (`/checkout/{listing_id}/status?intent=…`, checkout-status.ts) pays it with
 * the provider the buyer chose (checkout-wallet.ts, checkout-card.ts) and follows it to delivery.
 * The page never confirms a sale itself: the service does, from the provider's event or the
 * redemption seen on chain. The intent's client_token stays in this tab's sessionStorage
 * (checkout-intent.ts). Text goes in with textContent, never as markup.
 */

export { failureText } from './checkout-text.ts';

if (typeof document !== 'undefined' && main) {
  if (main.dataset.page === 'status') startStatus();
  else void startCheckout();
}
