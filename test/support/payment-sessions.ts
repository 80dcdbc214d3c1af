import type {
  ExternalPaymentProvider,
  PaymentCheck,
  PaymentSessions,
  Ports,
  ProviderEventProcessor,
  ProviderWebhook,
} from '../../src/context.ts';
import type { ListingRow, PurchaseIntentRow } from '../../src/db/schema.ts';
import type { ApiError } from '../../src/lib/errors.ts';
import { PORTS } from '../../src/wiring/ports.ts';

/** A session as the in-memory provider keeps it. */
export interface TestSession {
  intentId: string;
  amount: bigint;
  currency: string;
  state: 'OPEN' | 'PAID' | 'CLOSED';
}

/**
 * An in-memory payment provider behind the payment-session seam, for the tests of what purchase
 * intents do around a provider whatever it is (holds, expiry, cancellation, reconciliation):
 * sessions are kept here and the test decides what the provider answers. The real providers
 * (card, crypto) are tested end to end against HTTP stand-ins of their APIs.
 */
export class TestPaymentProvider implements PaymentSessions {
  readonly sessions = new Map<string, TestSession>();
  readonly calls: { open: string[]; cancel: string[]; check: string[] } = { open: [], cancel: [], check: [] };
  /** The next `open` calls fail with this error (then it is cleared). */
  failOpen: Error | undefined;
  /** While set, `check` and `cancel` throw it (the provider out of reach). */
  unreachable: Error | undefined;
  /** Answered by assertReady when set. */
  notReady: ApiError | undefined;
  /** defaultSessionSeconds' answer. */
  defaultSeconds: number | undefined;

  constructor(readonly provider: ExternalPaymentProvider) {}

  async assertReady(): Promise<void> {
    if (this.notReady) throw this.notReady;
  }

  async defaultSessionSeconds(): Promise<number | undefined> {
    return this.defaultSeconds;
  }

  async open(_db: unknown, _deps: unknown, intent: PurchaseIntentRow, listing: ListingRow) {
    this.calls.open.push(intent.id);
    if (this.failOpen) {
      const error = this.failOpen;
      this.failOpen = undefined;
      throw error;
    }
    // Idempotent by intent id, as the providers' idempotency keys make it.
    const reference = `session_${intent.id}`;
    const price = intent.provider_price as { amount: string; currency: string };
    if (!this.sessions.has(reference))
      this.sessions.set(reference, {
        intentId: intent.id,
        amount: BigInt(price.amount),
        currency: listing.currency,
        state: 'OPEN',
      });
    return { reference, data: { session: reference } };
  }

  async cancel(_db: unknown, _deps: unknown, intent: PurchaseIntentRow): Promise<void> {
    this.calls.cancel.push(intent.id);
    if (this.unreachable) throw this.unreachable;
    const session = this.sessionOf(intent);
    if (session?.state === 'OPEN') session.state = 'CLOSED';
  }

  async check(_db: unknown, _deps: unknown, intent: PurchaseIntentRow): Promise<PaymentCheck> {
    this.calls.check.push(intent.id);
    if (this.unreachable) throw this.unreachable;
    const session = this.sessionOf(intent);
    if (!session || session.state === 'CLOSED') return { state: 'CLOSED' };
    if (session.state === 'OPEN') return { state: 'OPEN' };
    return { state: 'PAID', amount: session.amount, currency: session.currency };
  }

  /** The buyer pays at the provider (no event is sent: tests report it or let the service ask). */
  pay(intentId: string): TestSession {
    const session = [...this.sessions.values()].find((s) => s.intentId === intentId);
    if (!session) throw new Error(`no session for intent ${intentId}`);
    session.state = 'PAID';
    return session;
  }

  referenceOf(intentId: string): string {
    return `session_${intentId}`;
  }

  private sessionOf(intent: PurchaseIntentRow): TestSession | undefined {
    return this.sessions.get(`session_${intent.id}`);
  }
}

/**
 * An in-memory provider for `provider` and the ports that put it in place of the real one, for
 * `setupTest(config, { ports })`; `providerEvents` is the ports' own copy, which a test may change.
 */
export function testPayments(provider: ExternalPaymentProvider = 'CARD_PROVIDER'): {
  payments: TestPaymentProvider;
  ports: Partial<Ports> & { providerEvents: Partial<Record<ProviderWebhook, ProviderEventProcessor>> };
} {
  const payments = new TestPaymentProvider(provider);
  return {
    payments,
    ports: {
      paymentSessions: { ...PORTS.paymentSessions, [provider]: payments },
      providerEvents: { ...PORTS.providerEvents },
    },
  };
}
