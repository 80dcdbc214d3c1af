import type { IncomingHttpHeaders } from 'node:http';
import type { Kysely } from 'kysely';
import type { Deps, ProviderEventProcessor } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import type { Executor } from '../../../db/executor.ts';
import { UUID_PATTERN } from '../../../lib/ids.ts';
import { receiveProviderEvent } from '../../platform/provider-events/provider-events.service.ts';
import {
  purchaseIntentOwner,
  recordPayment,
  recordPaymentClosed,
} from '../../sales/purchase-intents/purchase-confirmation.service.ts';
import { findCryptoAccount } from './crypto-provider.service.ts';
import { verifyHook0Signature } from './hook0-signature.ts';
import { centsOfUsdc } from './usdc.ts';

/** The webhook's name in the provider-events inbox (its URL segment). */
export const CRYPTO_PROVIDER_EVENTS = 'crypto-provider';
/** Hook0's id of an event, the same on every re-delivery of it. */
const HOOK0_ID_HEADER = 'x-hook0-id';
const MAX_ID_LENGTH = 255;

export const PAYMENT_SUCCESS = 'payment_link.payment.success';
export const PAYMENT_FAILED = 'payment_link.payment.failed';
export const PAYMENT_EXPIRED = 'payment_link.payment.expired';

export type ReceiveOutcome = { ok: true; duplicate: boolean } | { ok: false; reason: string };

/** What the service reads of the body CDP posts: the payment link as it is now, with the event's type. */
interface PaymentLinkEvent {
  id: string;
  eventType: string;
  amount: unknown;
  currency: unknown;
  metadata: unknown;
}

/**
 * A delivery to the organization's webhook: verified with its webhook secret on the raw bytes
 * (nothing is stored otherwise), then handed to the inbox, which records it once per event id
 * (x-hook0-id, else the link id and event type) and processes it with `processCryptoEvent`.
 */
export async function receiveCryptoEvent(
  db: Kysely<Database>,
  deps: Deps,
  delivery: { organizationId: string; headers: IncomingHttpHeaders; rawBody: Buffer },
): Promise<ReceiveOutcome> {
  const account = await findCryptoAccount(db, deps, delivery.organizationId);
  // Without the organization's secret no signature can be checked: refused like a bad one.
  if (!account) return { ok: false, reason: 'the signature cannot be verified for this organization' };
  const check = verifyHook0Signature(delivery.headers, delivery.rawBody, account.webhookSecret);
  if (!check.ok) return check;
  const payload = delivery.rawBody.toString('utf8');
  const event = eventOf(payload);
  if (!event) return { ok: false, reason: 'the body is not a payment-link event (id, eventType)' };
  const hook0Id = delivery.headers[HOOK0_ID_HEADER];
  const eventId =
    typeof hook0Id === 'string' && hook0Id.length > 0 && hook0Id.length <= MAX_ID_LENGTH
      ? hook0Id
      : `${event.id}:${event.eventType}`;
  const recorded = await receiveProviderEvent(db, deps, {
    provider: CRYPTO_PROVIDER_EVENTS,
    eventId,
    eventType: event.eventType,
    account: delivery.organizationId,
    payload,
  });
  return { ok: true, duplicate: recorded.duplicate };
}

function eventOf(payload: string): PaymentLinkEvent | undefined {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { id, eventType, amount, currency, metadata } = body as Record<string, unknown>;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) return undefined;
  if (typeof eventType !== 'string' || eventType.length === 0 || eventType.length > MAX_ID_LENGTH)
    return undefined;
  return { id, eventType, amount, currency, metadata };
}

/**
 * A recorded payment-link event of the organization its URL names (`account`):
 * - payment_link.payment.success: the intent's payment (the link's amount, USDC 1:1 in USD cents);
 * - payment_link.payment.failed, .expired: the intent's session ended unpaid (a PENDING intent
 *   expires, its hold released);
 * - anything else: acknowledged.
 * The link must be the intent's (metadata.purchase_intent_id names an intent of that organization
 * whose crypto_provider_charge_id is the link's id): otherwise nothing changes and it is logged.
 */
export const processCryptoEvent: ProviderEventProcessor = async (db, deps, row) => {
  const event = eventOf(row.payload);
  const log = deps.logger.child({ providerEventId: row.id, eventType: row.event_type });
  if (!event || row.account === null) {
    log.warn('a crypto-provider event without its link or organization: ignored');
    return;
  }
  if (![PAYMENT_SUCCESS, PAYMENT_FAILED, PAYMENT_EXPIRED].includes(event.eventType)) {
    log.info({ paymentLinkId: event.id }, 'a crypto-provider event of no interest: acknowledged');
    return;
  }
  const intent = await intentOfLink(db, row.account, event);
  if (!intent) {
    log.warn(
      { paymentLinkId: event.id, organizationId: row.account },
      'a payment-link event names no purchase intent of the organization with this link: ignored',
    );
    return;
  }
  const session = { provider: 'CRYPTO_PROVIDER' as const, reference: event.id };
  if (event.eventType !== PAYMENT_SUCCESS) {
    const closed = await recordPaymentClosed(db, deps, intent.id, session);
    log.info({ purchaseIntentId: intent.id, expired: closed }, 'payment link ended unpaid');
    return;
  }
  const amount = typeof event.amount === 'string' ? centsOfUsdc(event.amount) : undefined;
  if (amount === undefined) {
    log.warn(
      { purchaseIntentId: intent.id, amount: event.amount },
      'a payment without an amount in cents: ignored',
    );
    return;
  }
  // USDC is paid 1:1 for the listing's USD; any other currency is a mismatch recordPayment refuses.
  const currency = event.currency === 'USDC' ? 'USD' : String(event.currency);
  const outcome = await recordPayment(db, deps, intent.id, { ...session, amount, currency });
  log.info({ purchaseIntentId: intent.id, outcome }, 'payment link paid');
};

/**
 * The purchase intent the event's link belongs to: its id, when it is a CRYPTO_PROVIDER intent of
 * the URL's organization whose stored link id is the event's; otherwise undefined (another
 * organization's intent is treated as unknown).
 */
async function intentOfLink(
  db: Executor,
  organizationId: string,
  event: PaymentLinkEvent,
): Promise<{ id: string } | undefined> {
  const metadata = event.metadata;
  const intentId =
    typeof metadata === 'object' && metadata !== null
      ? (metadata as Record<string, unknown>).purchase_intent_id
      : undefined;
  if (typeof intentId !== 'string' || !new RegExp(UUID_PATTERN).test(intentId)) return undefined;
  const owner = await purchaseIntentOwner(db, intentId);
  if (
    owner?.organizationId !== organizationId ||
    owner.provider !== 'CRYPTO_PROVIDER' ||
    owner.reference !== event.id
  )
    return undefined;
  return { id: intentId };
}
