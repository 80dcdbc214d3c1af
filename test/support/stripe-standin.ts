/**
 * A local stand-in of Stripe's API at its HTTP boundary, reached by the REAL `stripe` SDK through
 * STRIPE_API_BASE (`standin.url`), and a sender of Stripe-signed webhook events.
 *
 * What it checks, as Stripe does:
 * - `Authorization: Bearer <key>`: a platform secret key given to `startStripeStandin` (401
 *   otherwise); `confirm` also takes the platform's publishable key with the PaymentIntent's
 *   `client_secret` in the body, as Stripe.js sends it;
 * - bodies are form-encoded with bracket notation (`metadata[purchase_intent_id]=…`,
 *   `automatic_payment_methods[enabled]=true`); `standin.requests` keeps each request's method,
 *   path, headers of interest and the decoded params;
 * - `Stripe-Account: acct_…` makes a call on that connected account (403 when the account is not
 *   the platform's); PaymentIntents belong to the account they were created on (404
 *   resource_missing from another one); `application_fee_amount` needs a connected account;
 * - `Idempotency-Key`: the same key (per platform key and account) with the same method, path
 *   and body answers the first response again; with another body, 400 `idempotency_error`.
 * Errors are Stripe's `{error: {type, code, message, …}}` with Stripe's statuses.
 *
 * Endpoints: POST /v1/accounts, GET /v1/accounts/{id}, POST /v1/account_links,
 * POST /v1/payment_intents, GET and POST /v1/payment_intents/{id}, POST
 * /v1/payment_intents/{id}/cancel, POST /v1/payment_intents/{id}/confirm.
 *
 * Paying (what a checkout page's fake Stripe.js drives): POST
 * /v1/payment_intents/{id}/confirm with `payment_method`, authorised by the platform secret key
 * and `Stripe-Account`, or (as Stripe.js built with `stripeAccount` does) by the publishable key,
 * `Stripe-Account` and `client_secret` in the body:
 * - `pm_card_visa` → the PaymentIntent `succeeded` (amount_received = amount), 200, and a
 *   `payment_intent.succeeded` event;
 * - `pm_card_chargeDeclined` → 402 `card_error` (code `card_declined`, decline_code
 *   `generic_decline`), the PaymentIntent back to `requires_payment_method` with
 *   `last_payment_error`, and a `payment_intent.payment_failed` event;
 * - a `canceled` or `succeeded` PaymentIntent → 400 `payment_intent_unexpected_state`.
 * `standin.confirm(id, paymentMethod)` does the same from a test (no HTTP) and resolves once the
 * event's delivery is answered. Cancelling emits `payment_intent.canceled`.
 *
 * Events: `{id: 'evt_…', object: 'event', type, account (Connect events: the connected
 * account), created, livemode: false, api_version, data: {object}}`, POSTed as JSON to
 * `webhook.url` (or handed to `webhook.deliver`, for an app driven by inject) with
 * `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, signed with the
 * Connect endpoint's secret for Connect events and the account endpoint's for the platform's own.
 * `setAccountState(id, state)` changes a connected account and emits `account.updated`.
 * `events` keeps every event sent with its delivery's status; `resend(event)` sends one again.
 * `down = true` makes every API call fail with a 500 api_error (the SDK's retries included);
 * `failing(request)` fails the requests it picks the same way, before they do anything, and
 * `losing(request)` lets the requests it picks happen (an idempotent one is stored) but loses
 * their answer: a 500 instead, as a connection dropped after Stripe acted.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandinAccount {
  id: string;
  object: 'account';
  type: string;
  email: string | null;
  charges_enabled: boolean;
  details_submitted: boolean;
  payouts_enabled: boolean;
  metadata: Record<string, string>;
  created: number;
}

export interface StandinPaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  application_fee_amount: number | null;
  automatic_payment_methods: { enabled: boolean } | null;
  cancellation_reason: string | null;
  client_secret: string;
  currency: string;
  metadata: Record<string, string>;
  status: string;
  payment_method: string | null;
  last_payment_error: Record<string, unknown> | null;
  livemode: false;
  created: number;
  /** Not Stripe's: the connected account it was created on (null: the platform). */
  _account: string | null;
}

export interface StandinRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  stripeAccount: string | undefined;
  idempotencyKey: string | undefined;
  contentType: string | undefined;
  rawBody: string;
  params: Record<string, unknown>;
  status: number;
}

export interface StandinEvent {
  id: string;
  object: 'event';
  type: string;
  account?: string;
  api_version: string;
  created: number;
  livemode: false;
  data: { object: unknown };
}

export interface WebhookTarget {
  /** POSTed to when set and `deliver` is not. */
  url?: string;
  /** Hands the signed event to a test's app (e.g. through inject); answers the status. */
  deliver?: (rawBody: string, headers: Record<string, string>) => Promise<number>;
  /** Signs events of connected accounts (the Connect endpoint's whsec_…). */
  connectSecret?: string;
  /** Signs the platform's own events (the account endpoint's whsec_…). */
  accountSecret?: string;
}

class StripeFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}

function fail(status: number, type: string, message: string, extra: Record<string, unknown> = {}): never {
  throw new StripeFailure(status, { type, message, ...extra });
}

const API_VERSION = '2025-10-29.clover';
const CURRENCIES = new Set(['usd', 'eur', 'gbp', 'chf', 'cad', 'aud', 'jpy']);

/** Decodes a form body with Stripe's bracket notation into nested objects and arrays. */
export function decodeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.split(/\[|\]\[|\]/).filter((part, i) => i === 0 || part !== '' || key.endsWith('[]'));
    let node: Record<string, unknown> = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const part = parts[i] as string;
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts.at(-1) as string] = value;
  }
  return root;
}

function id(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** The Stripe-Signature header of a raw body, exactly as Stripe computes it. */
export function stripeSignature(rawBody: string, secret: string, timestamp = now()): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

export interface StripeStandin {
  readonly url: string;
  readonly accounts: Map<string, StandinAccount>;
  readonly paymentIntents: Map<string, StandinPaymentIntent>;
  readonly requests: StandinRequest[];
  readonly events: { event: StandinEvent; status: number | undefined }[];
  webhook: WebhookTarget;
  down: boolean;
  failing: ((request: StandinRequest) => boolean) | undefined;
  losing: ((request: StandinRequest) => boolean) | undefined;
  /** Changes a connected account and emits account.updated (resolves once delivered). */
  setAccountState(
    accountId: string,
    state: { charges_enabled?: boolean; details_submitted?: boolean },
  ): Promise<StandinEvent>;
  /** Pays (or fails to pay) a PaymentIntent as the confirm endpoint does; resolves once the event is delivered. */
  confirm(
    paymentIntentId: string,
    paymentMethod: string,
  ): Promise<{ status: number; body: unknown; event: StandinEvent | undefined }>;
  /** Cancels as the cancel endpoint does. */
  cancel(paymentIntentId: string): Promise<{ status: number; body: unknown }>;
  /** Builds, signs and sends an event (Connect when `account` is given). */
  emit(type: string, object: unknown, account?: string): Promise<StandinEvent>;
  /** Resolves once the events of the API calls answered so far are delivered. */
  idle(): Promise<void>;
  /** Sends an event again (a re-delivery), signed anew. */
  resend(event: StandinEvent): Promise<number | undefined>;
  close(): Promise<void>;
}

export async function startStripeStandin(options: {
  secretKeys: readonly string[];
  publishableKeys?: readonly string[];
  webhook?: WebhookTarget;
}): Promise<StripeStandin> {
  const accounts = new Map<string, StandinAccount>();
  const paymentIntents = new Map<string, StandinPaymentIntent>();
  const requests: StandinRequest[] = [];
  const events: { event: StandinEvent; status: number | undefined }[] = [];
  const idempotent = new Map<string, { fingerprint: string; status: number; body: string }>();
  const pending = new Set<Promise<unknown>>();

  function view(pi: StandinPaymentIntent): Omit<StandinPaymentIntent, '_account'> {
    const { _account, ...rest } = pi;
    return rest;
  }

  async function send(event: StandinEvent): Promise<number | undefined> {
    const target = standin.webhook;
    const secret = event.account ? target.connectSecret : target.accountSecret;
    const raw = JSON.stringify(event, null, 2);
    const entry = { event, status: undefined as number | undefined };
    if (!events.includes(entry)) events.push(entry);
    if (secret === undefined) return undefined;
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'stripe-signature': stripeSignature(raw, secret),
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
    };
    if (target.deliver) entry.status = await target.deliver(raw, headers);
    else if (target.url) {
      const response = await fetch(target.url, { method: 'POST', headers, body: raw });
      entry.status = response.status;
    }
    return entry.status;
  }

  async function emit(type: string, object: unknown, account?: string): Promise<StandinEvent> {
    const event: StandinEvent = {
      id: id('evt'),
      object: 'event',
      type,
      ...(account !== undefined && { account }),
      api_version: API_VERSION,
      created: now(),
      livemode: false,
      data: { object: JSON.parse(JSON.stringify(object)) },
    };
    await send(event);
    return event;
  }

  function paymentIntentOf(piId: string, account: string | null): StandinPaymentIntent {
    const pi = paymentIntents.get(piId);
    if (!pi || pi._account !== account)
      fail(404, 'invalid_request_error', `No such payment_intent: '${piId}'`, {
        code: 'resource_missing',
        param: 'intent',
      });
    return pi;
  }

  function unexpectedState(pi: StandinPaymentIntent, action: string): never {
    fail(
      400,
      'invalid_request_error',
      `You cannot ${action} this PaymentIntent because it has a status of ${pi.status}.`,
      { code: 'payment_intent_unexpected_state', payment_intent: view(pi) },
    );
  }

  /** Confirm: returns the answer and the event to send after it. */
  function doConfirm(
    pi: StandinPaymentIntent,
    paymentMethod: unknown,
  ): { status: number; body: unknown; event: [string, unknown] } {
    if (pi.status === 'canceled' || pi.status === 'succeeded') unexpectedState(pi, 'confirm');
    if (typeof paymentMethod !== 'string')
      fail(400, 'invalid_request_error', 'You must provide a payment_method to confirm this PaymentIntent.', {
        code: 'parameter_missing',
        param: 'payment_method',
      });
    if (paymentMethod === 'pm_card_visa') {
      pi.status = 'succeeded';
      pi.payment_method = id('pm');
      pi.amount_received = pi.amount;
      pi.last_payment_error = null;
      return { status: 200, body: view(pi), event: ['payment_intent.succeeded', view(pi)] };
    }
    if (paymentMethod === 'pm_card_chargeDeclined') {
      pi.status = 'requires_payment_method';
      pi.last_payment_error = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
      };
      const error = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
        payment_intent: view(pi),
      };
      return { status: 402, body: { error }, event: ['payment_intent.payment_failed', view(pi)] };
    }
    fail(400, 'invalid_request_error', `No such PaymentMethod: '${paymentMethod}'`, {
      code: 'resource_missing',
      param: 'payment_method',
    });
  }

  function doCancel(pi: StandinPaymentIntent): unknown {
    if (pi.status === 'canceled' || pi.status === 'succeeded') unexpectedState(pi, 'cancel');
    pi.status = 'canceled';
    pi.cancellation_reason = 'requested_by_customer';
    return view(pi);
  }

  function authorize(
    request: IncomingMessage,
    params: Record<string, unknown>,
    path: string,
  ): 'secret' | 'publishable' {
    const auth = request.headers.authorization;
    const key = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
    if (key === undefined)
      fail(401, 'invalid_request_error', 'You did not provide an API key. Use Authorization: Bearer <key>.');
    if (options.secretKeys.includes(key)) return 'secret';
    if (options.publishableKeys?.includes(key) && /\/confirm$/.test(path)) {
      const pi = paymentIntents.get(path.split('/')[3] ?? '');
      if (pi && params.client_secret === pi.client_secret) return 'publishable';
    }
    fail(401, 'invalid_request_error', `Invalid API Key provided: ${key.slice(0, 8)}***`);
  }

  function route(
    method: string,
    path: string,
    params: Record<string, unknown>,
    account: string | null,
  ): { status: number; body: unknown; after?: [string, unknown, string | undefined] } {
    if (account !== null && !accounts.has(account))
      fail(403, 'invalid_request_error', 'The provided key does not have access to account', {
        code: 'account_invalid',
      });
    const segments = path.split('/').filter(Boolean); // ['v1', ...]
    if (segments[0] !== 'v1')
      fail(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
    const [, resource, resourceId, action] = segments;

    if (resource === 'accounts' && method === 'POST' && resourceId === undefined) {
      if (account !== null) fail(400, 'invalid_request_error', 'Connected accounts cannot create accounts.');
      const type = params.type;
      if (type !== 'standard' && type !== 'express' && type !== 'custom')
        fail(400, 'invalid_request_error', 'Invalid type: must be one of standard, express, or custom', {
          code: 'parameter_invalid_empty',
          param: 'type',
        });
      const created: StandinAccount = {
        id: id('acct'),
        object: 'account',
        type,
        email: typeof params.email === 'string' ? params.email : null,
        charges_enabled: false,
        details_submitted: false,
        payouts_enabled: false,
        metadata: (params.metadata as Record<string, string>) ?? {},
        created: now(),
      };
      accounts.set(created.id, created);
      return { status: 200, body: created };
    }
    if (resource === 'accounts' && method === 'GET' && resourceId !== undefined) {
      const found = accounts.get(resourceId);
      if (!found)
        fail(404, 'invalid_request_error', `No such account: '${resourceId}'`, { code: 'resource_missing' });
      return { status: 200, body: found };
    }
    if (resource === 'account_links' && method === 'POST' && resourceId === undefined) {
      for (const param of ['account', 'refresh_url', 'return_url', 'type'])
        if (typeof params[param] !== 'string')
          fail(400, 'invalid_request_error', `Missing required param: ${param}.`, {
            code: 'parameter_missing',
            param,
          });
      const linked = params.account as string;
      if (!accounts.has(linked))
        fail(400, 'invalid_request_error', `No such account: '${linked}'`, { code: 'resource_missing' });
      return {
        status: 200,
        body: {
          object: 'account_link',
          created: now(),
          expires_at: now() + 300,
          url: `${standin.url}/setup/s/${linked}/${randomBytes(9).toString('base64url')}`,
        },
      };
    }
    if (resource === 'payment_intents' && method === 'POST' && resourceId === undefined) {
      const amount = Number(params.amount);
      if (!/^[1-9][0-9]*$/.test(String(params.amount)) || !Number.isSafeInteger(amount))
        fail(400, 'invalid_request_error', 'Invalid positive integer', {
          code: 'parameter_invalid_integer',
          param: 'amount',
        });
      const currency = params.currency;
      if (typeof currency !== 'string' || !CURRENCIES.has(currency))
        fail(400, 'invalid_request_error', `Invalid currency: ${String(currency)}.`, { param: 'currency' });
      let fee: number | null = null;
      if (params.application_fee_amount !== undefined) {
        fee = Number(params.application_fee_amount);
        if (!/^(0|[1-9][0-9]*)$/.test(String(params.application_fee_amount)))
          fail(400, 'invalid_request_error', 'Invalid non-negative integer', {
            param: 'application_fee_amount',
          });
        if (account === null)
          fail(
            400,
            'invalid_request_error',
            'Can only apply an application_fee_amount when the PaymentIntent is attempting a direct payment (using an OAuth key or Stripe-Account header) or destination payment (using `transfer_data[destination]`).',
            { param: 'application_fee_amount' },
          );
        if (fee > amount)
          fail(400, 'invalid_request_error', 'The application fee cannot exceed the amount.', {
            param: 'application_fee_amount',
          });
      }
      const piId = id('pi');
      const pi: StandinPaymentIntent = {
        id: piId,
        object: 'payment_intent',
        amount,
        amount_received: 0,
        application_fee_amount: fee,
        automatic_payment_methods:
          (params.automatic_payment_methods as { enabled?: string } | undefined)?.enabled === 'true'
            ? { enabled: true }
            : null,
        cancellation_reason: null,
        client_secret: `${piId}_secret_${randomBytes(12).toString('hex')}`,
        currency,
        metadata: (params.metadata as Record<string, string>) ?? {},
        status: 'requires_payment_method',
        payment_method: null,
        last_payment_error: null,
        livemode: false,
        created: now(),
        _account: account,
      };
      paymentIntents.set(piId, pi);
      return { status: 200, body: view(pi) };
    }
    if (resource === 'payment_intents' && resourceId !== undefined) {
      const pi = paymentIntentOf(resourceId, account);
      if (method === 'GET' && action === undefined) return { status: 200, body: view(pi) };
      if (method === 'POST' && action === undefined) {
        if (params.metadata) pi.metadata = { ...pi.metadata, ...(params.metadata as Record<string, string>) };
        return { status: 200, body: view(pi) };
      }
      if (method === 'POST' && action === 'cancel') {
        const body = doCancel(pi);
        return { status: 200, body, after: ['payment_intent.canceled', body, account ?? undefined] };
      }
      if (method === 'POST' && action === 'confirm') {
        const result = doConfirm(pi, params.payment_method);
        return { status: result.status, body: result.body, after: [...result.event, account ?? undefined] };
      }
    }
    fail(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://standin');
    const method = request.method ?? 'GET';
    const params = decodeForm(method === 'GET' ? url.search.slice(1) : rawBody);
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const record: StandinRequest = {
      method,
      path: url.pathname,
      authorization: header('authorization'),
      stripeAccount: header('stripe-account'),
      idempotencyKey: header('idempotency-key'),
      contentType: header('content-type'),
      rawBody,
      params,
      status: 0,
    };
    requests.push(record);
    let status: number;
    let body: string;
    let after: [string, unknown, string | undefined] | undefined;
    try {
      if (standin.down || standin.failing?.(record))
        fail(500, 'api_error', 'An unknown error occurred (the stand-in is down).');
      if (
        method === 'POST' &&
        rawBody !== '' &&
        !record.contentType?.startsWith('application/x-www-form-urlencoded')
      )
        fail(400, 'invalid_request_error', 'Invalid request: bodies must be form-encoded.');
      const keyKind = authorize(request, params, url.pathname);
      const account = record.stripeAccount ?? null;
      if (keyKind === 'publishable') delete params.client_secret;
      const idemKey = method === 'POST' ? record.idempotencyKey : undefined;
      const scope = `${record.authorization}|${account}|${idemKey}`;
      const fingerprint = `${method} ${url.pathname} ${rawBody}`;
      const earlier = idemKey === undefined ? undefined : idempotent.get(scope);
      if (earlier) {
        if (earlier.fingerprint !== fingerprint)
          fail(
            400,
            'idempotency_error',
            `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`,
          );
        status = earlier.status;
        body = earlier.body;
        response.setHeader('idempotent-replayed', 'true');
      } else {
        const result = route(method, url.pathname, params, account);
        status = result.status;
        body = JSON.stringify(result.body);
        after = result.after;
        if (idemKey !== undefined) idempotent.set(scope, { fingerprint, status, body });
      }
    } catch (error) {
      if (!(error instanceof StripeFailure)) throw error;
      status = error.status;
      body = JSON.stringify({ error: error.body });
    }
    if (status < 500 && standin.losing?.(record)) {
      status = 500;
      body = JSON.stringify({
        error: { type: 'api_error', message: 'An unknown error occurred (the answer was lost).' },
      });
    }
    record.status = status;
    response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
    response.end(body);
    if (after) {
      const [type, object, account] = after;
      const delivery = emit(type, object, account);
      pending.add(delivery);
      delivery.finally(() => pending.delete(delivery)).catch(() => {});
    }
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { type: 'api_error', message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const standin: StripeStandin = {
    url: `http://127.0.0.1:${port}`,
    accounts,
    paymentIntents,
    requests,
    events,
    webhook: options.webhook ?? {},
    down: false,
    failing: undefined,
    losing: undefined,
    async setAccountState(accountId, state) {
      const account = accounts.get(accountId);
      if (!account) throw new Error(`stand-in: no account ${accountId}`);
      Object.assign(account, state);
      return emit('account.updated', account, accountId);
    },
    async confirm(paymentIntentId, paymentMethod) {
      const pi = paymentIntents.get(paymentIntentId);
      if (!pi) throw new Error(`stand-in: no PaymentIntent ${paymentIntentId}`);
      try {
        const result = doConfirm(pi, paymentMethod);
        const event = await emit(result.event[0], result.event[1], pi._account ?? undefined);
        return { status: result.status, body: result.body, event };
      } catch (error) {
        if (!(error instanceof StripeFailure)) throw error;
        return { status: error.status, body: { error: error.body }, event: undefined };
      }
    },
    async cancel(paymentIntentId) {
      const pi = paymentIntents.get(paymentIntentId);
      if (!pi) throw new Error(`stand-in: no PaymentIntent ${paymentIntentId}`);
      try {
        const body = doCancel(pi);
        await emit('payment_intent.canceled', body, pi._account ?? undefined);
        return { status: 200, body };
      } catch (error) {
        if (!(error instanceof StripeFailure)) throw error;
        return { status: error.status, body: { error: error.body } };
      }
    },
    emit,
    async idle() {
      await Promise.allSettled([...pending]);
    },
    resend: send,
    async close() {
      await Promise.allSettled([...pending]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return standin;
}
