import type { Kysely } from 'kysely';
import type { Deps } from '../../../context.ts';
import {
  isExternalPaymentProvider,
  type PaymentCheck,
  type PaymentSession,
  paymentSessionsOf,
} from '../../../context.ts';
import type { Database, PurchaseIntentRow } from '../../../db/schema.ts';
import { ApiError } from '../../../lib/errors.ts';
import {
  attachPaymentSession,
  completeClaimSale,
  type PaymentOutcome,
  recordPayment,
} from './purchase-confirmation.service.ts';
import type { NewPurchaseIntent } from './purchase-creation.service.ts';
import * as repo from './purchase-intents.repository.ts';
import type { CreatedPurchaseIntent } from './purchase-intents.schemas.ts';
import {
  dropUnfinishedIntent,
  expireDuePurchaseIntents,
  expirePurchaseIntent,
  paymentReferenceOf,
} from './purchase-intents.service.ts';

/**
 * The conversation with a payment provider around an intent (card, crypto). Every provider call
 * happens outside a database transaction, between two short ones, so no row lock waits on the
 * provider; each step is safe to run again after a crash:
 * - create: hold (committed) → open the provider's session (idempotent by intent id) → store it;
 *   a provider that fails or refuses leaves nothing held (the intent is abandoned, 502);
 * - expiry: the provider is asked first (a payment whose event was missed confirms the intent),
 *   a session still open is cancelled there, then the intent expires;
 * - cancellation (buyer, listing): the intent ends here at once, a job cancels the session there
 *   and asks once more (a payment that slipped in makes the intent UNRESOLVED);
 * - reconciliation: intents still payable are asked about now and then, so a missed event never
 *   leaves a paid buyer without tokens.
 */

/** The answer to a just-created intent: a CARD_PROVIDER or CRYPTO_PROVIDER one's session opened first. */
export async function openPaymentSession(
  db: Kysely<Database>,
  deps: Deps,
  created: NewPurchaseIntent,
): Promise<CreatedPurchaseIntent> {
  const { answer, intent, listing } = created;
  const provider = intent.payment_provider;
  if (!isExternalPaymentProvider(provider)) return answer;
  let session: PaymentSession;
  try {
    session = await paymentSessionsOf(deps, provider).open(db, deps, intent, listing);
  } catch (error) {
    await db.transaction().execute((tx) => dropUnfinishedIntent(tx, intent.id));
    if (error instanceof ApiError) throw error;
    deps.logger.error({ err: error, purchaseIntentId: intent.id }, 'the payment provider failed');
    throw new ApiError('UPSTREAM_FAILED', 'the payment provider could not open a payment session');
  }
  const attached = await attachPaymentSession(db, intent.id, provider, session);
  return {
    ...answer,
    status: attached?.status ?? answer.status,
    data: attached?.attached ? session.data : null,
  };
}

/**
 * What the provider says of a PENDING intent's session, acted on: PAID is recorded (a missed
 * event); with `close`, a session still OPEN is cancelled there and asked again, so nothing can
 * be paid once this returns anything but PAID. Throws when the provider cannot be reached.
 */
async function askProvider(
  db: Kysely<Database>,
  deps: Deps,
  intent: PurchaseIntentRow,
  options: { close: boolean },
): Promise<{ check: PaymentCheck; outcome?: PaymentOutcome }> {
  if (!isExternalPaymentProvider(intent.payment_provider)) throw new Error('not a provider session');
  const provider = intent.payment_provider;
  const reference = paymentReferenceOf(intent);
  if (reference === null) return { check: { state: 'CLOSED' } };
  const sessions = paymentSessionsOf(deps, provider);
  let check = await sessions.check(db, deps, intent);
  if (check.state === 'OPEN' && options.close) {
    await sessions.cancel(db, deps, intent);
    check = await sessions.check(db, deps, intent);
    if (check.state === 'OPEN')
      throw new Error(`the ${provider} session ${reference} is still open after its cancel`);
  }
  if (check.state !== 'PAID') return { check };
  const paid = check;
  const outcome = await db.transaction().execute((tx) =>
    recordPayment(tx, deps, intent.id, {
      provider,
      reference,
      amount: paid.amount,
      currency: paid.currency,
    }),
  );
  if (outcome === 'CONFIRMED' || outcome === 'UNRESOLVED')
    deps.logger.warn({ purchaseIntentId: intent.id, outcome }, 'a payment found by asking the provider');
  return { check, outcome };
}

/**
 * Expiry of one intent (its job, and the sweep): a provider session is settled with the
 * provider first; then a PENDING intent past its expiration becomes EXPIRED.
 */
export async function expireIntentWithProvider(
  db: Kysely<Database>,
  deps: Deps,
  id: string,
): Promise<boolean> {
  const intent = await repo.findIntent(db, id);
  if (intent?.status !== 'PENDING' || intent.expiration > new Date()) return false;
  if (isExternalPaymentProvider(intent.payment_provider)) {
    const { check, outcome } = await askProvider(db, deps, intent, { close: true });
    // A payment that does not fit the intent is logged and does not keep the units held.
    if (check.state === 'PAID' && outcome !== 'MISMATCH') return false;
  }
  return db.transaction().execute((tx) => expirePurchaseIntent(tx, id));
}

/** How many intents' provider sessions the sweep settles at once. */
const PROVIDER_EXPIRIES_AT_ONCE = 8;

/**
 * The sweep: every due PENDING intent expires, up to `batch` of each kind: those without a
 * provider session in one transaction, those with one each after asking its provider,
 * PROVIDER_EXPIRIES_AT_ONCE at a time (one whose provider is out of reach waits for the next
 * sweep). Email claim sales a crash left uncompleted are completed. Returns how many expired.
 */
export async function expireDueIntents(db: Kysely<Database>, deps: Deps, batch = 200): Promise<number> {
  for (const id of await repo.unfinishedClaimSales(db, batch))
    await db.transaction().execute((tx) => completeClaimSale(tx, deps, id));
  let expired = await db.transaction().execute((tx) => expireDuePurchaseIntents(tx, batch));
  const due = await repo.dueProviderIntents(db, batch);
  let next = 0;
  const expireNext = async (): Promise<void> => {
    for (let id = due[next++]; id !== undefined; id = due[next++]) {
      try {
        if (await expireIntentWithProvider(db, deps, id)) expired++;
      } catch (error) {
        deps.logger.warn({ err: error, purchaseIntentId: id }, 'expiry waits on the payment provider');
      }
    }
  };
  await Promise.all(Array.from({ length: PROVIDER_EXPIRIES_AT_ONCE }, expireNext));
  return expired;
}

/**
 * The job behind a cancelled or expired intent's session: cancelled at the provider, then asked
 * once more; a payment made meanwhile makes the intent UNRESOLVED. Throws (and is retried) while
 * the provider cannot be reached.
 */
export async function cancelPaymentSession(db: Kysely<Database>, deps: Deps, id: string): Promise<void> {
  const intent = await repo.findIntent(db, id);
  if (!intent || (intent.status !== 'CANCELLED' && intent.status !== 'EXPIRED')) return;
  if (paymentReferenceOf(intent) === null) return;
  await askProvider(db, deps, intent, { close: true });
}

/**
 * Reconciliation: PENDING intents with a session opened a while ago are asked about, so a paid
 * buyer whose event never came is confirmed before the session ends. Returns how many were asked.
 */
export async function reconcilePendingPayments(
  db: Kysely<Database>,
  deps: Deps,
  options: { olderThanSeconds?: number; batch?: number } = {},
): Promise<number> {
  const ids = await repo.pendingProviderIntents(db, options.olderThanSeconds ?? 120, options.batch ?? 200);
  for (const id of ids) {
    const intent = await repo.findIntent(db, id);
    if (intent?.status !== 'PENDING') continue;
    try {
      await askProvider(db, deps, intent, { close: false });
    } catch (error) {
      deps.logger.warn(
        { err: error, purchaseIntentId: id },
        'reconciliation could not reach the payment provider',
      );
    }
  }
  return ids.length;
}
