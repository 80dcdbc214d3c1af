import type { IncomingHttpHeaders } from 'node:http';
import type { Deps } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { markProcessed, recordProviderEvent } from '../provider-events/provider-events.service.ts';
import { findCryptoAccount } from './crypto-provider.service.ts';
import { verifyHook0Signature } from './hook0-signature.ts';

/** The webhook's name in the provider-events inbox (its URL segment). */
export const CRYPTO_PROVIDER_EVENTS = 'crypto-provider';
/** Hook0's id of a delivery attempt's event, the same on every re-delivery. */
const HOOK0_ID_HEADER = 'x-hook0-id';

export type ReceiveOutcome = { ok: true; duplicate: boolean } | { ok: false; reason: string };

/** The body CDP posts: the payment link as it is now, with the event's type. */
interface PaymentLinkEvent {
  id: string;
  eventType: string;
}

/**
 * A delivery to the organization's webhook: verified with its webhook secret on the raw bytes,
 * then recorded once per event id (x-hook0-id, else the link id and event type) and processed.
 */
export async function receiveCryptoEvent(
  db: Executor,
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
    typeof hook0Id === 'string' && hook0Id.length > 0 && hook0Id.length <= 255
      ? hook0Id
      : `${event.id}:${event.eventType}`;
  return db.transaction().execute(async (tx) => {
    const recorded = await recordProviderEvent(tx, {
      provider: CRYPTO_PROVIDER_EVENTS,
      eventId,
      eventType: event.eventType,
      account: delivery.organizationId,
      payload,
    });
    if (recorded.duplicate) return { ok: true, duplicate: true };
    await processCryptoEvent(tx, deps, { account: delivery.organizationId, payload });
    await markProcessed(tx, recorded.id);
    return { ok: true, duplicate: false };
  });
}

function eventOf(payload: string): PaymentLinkEvent | undefined {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { id, eventType } = body as Record<string, unknown>;
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) return undefined;
  if (typeof eventType !== 'string' || eventType.length === 0 || eventType.length > 200) return undefined;
  return { id, eventType };
}

/** Processes a recorded payment-link event of an organization. */
export async function processCryptoEvent(
  _db: Executor,
  deps: Deps,
  event: { account: string | null; payload: string },
): Promise<void> {
  deps.logger.info({ organization_id: event.account }, 'crypto provider event');
}
