import { createHmac, generateKeyPairSync, type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeProtectedHeader, jwtVerify } from 'jose';

/**
 * Coinbase Business's Payment Link API on loopback, reached by the service's real client through
 * COINBASE_BUSINESS_API_BASE. It checks every request's CDP JWT as CDP would (ES256 with the
 * public key of a registered API key: header alg, kid and nonce; claims iss "cdp", sub the key id,
 * nbf/exp window of at most 2 minutes, uris naming the request's own method, host and path) and
 * answers payment links or provider-shaped errors ({errorType, errorMessage}).
 *
 * Each link has a page, GET /pay/{id} (its `url`), whose "Pay" button marks it COMPLETED and
 * sends the signed payment_link.payment.success event, as the hosted page and Hook0 would; tests
 * can also mark links paid, failed or expired directly. Events go to the subscription of the
 * link's API key, signed X-Hook0-Signature with its secret, through `transport` (fetch by default;
 * tests that inject into the app set their own).
 */
export interface CdpKey {
  apiKeyId: string;
  /** PKCS#8 PEM, as PUT /v1/crypto-provider takes it. */
  privateKeyPem: string;
  publicKey: KeyObject;
}

export function newCdpKey(): CdpKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    apiKeyId: `organizations/${randomUUID()}/apiKeys/${randomUUID()}`,
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey,
  };
}

export interface StandinLink {
  id: string;
  url: string;
  status: 'ACTIVE' | 'COMPLETED' | 'EXPIRED' | 'DEACTIVATED' | 'FAILED';
  amount: string;
  currency: string;
  network: string;
  description: string;
  expiresAt: string;
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  /** Whose link it is (not in the API's answer). */
  apiKeyId: string;
}

export interface StandinRequest {
  method: string;
  path: string;
  /** Why the JWT was refused; undefined when it was accepted. */
  refused: string | undefined;
  idempotencyKey: string | undefined;
  body: unknown;
}

export interface Delivery {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface DeliveryAnswer {
  status: number;
  body: string;
}

export type Transport = (delivery: Delivery) => Promise<DeliveryAnswer>;

export type LinkEventType =
  | 'payment_link.payment.success'
  | 'payment_link.payment.failed'
  | 'payment_link.payment.expired';

export interface CoinbaseStandin {
  /** The API base (http://127.0.0.1:<port>), for COINBASE_BUSINESS_API_BASE. */
  url: string;
  links: Map<string, StandinLink>;
  requests: StandinRequest[];
  deliveries: Delivery[];
  /** Answers of the next API requests, each taken once: a status and an error message. */
  failures: { status: number; message: string }[];
  /** While true, every API connection is dropped without an answer (the provider is down). */
  down: boolean;
  transport: Transport;
  /** A key the API accepts. */
  registerKey(key: CdpKey): void;
  /** The webhook subscription of an API key's payment links. */
  subscribe(apiKeyId: string, subscription: { url: string; secret: string }): void;
  /** Marks the link and sends its event (success → COMPLETED, failed → FAILED, expired → EXPIRED). */
  settle(id: string, eventType: LinkEventType): Promise<DeliveryAnswer>;
  /** Sends a delivery (a recorded one again, or one a test made up). */
  send(delivery: Delivery): Promise<DeliveryAnswer>;
  /** A delivery of `link` (as it is, with eventType), signed for the subscription's secret. */
  delivery(link: StandinLink, eventType: string, options?: { timestamp?: number; id?: string }): Delivery;
  close(): Promise<void>;
}

/** X-Hook0-Signature's v1 of a delivery: hex HMAC-SHA256 of t.h.values.body. */
export function hook0V1(
  secret: string,
  t: string,
  names: string[],
  headers: Record<string, string>,
  body: string,
) {
  const values = names.map((name) => headers[name] ?? '');
  return createHmac('sha256', secret)
    .update(`${t}.${names.join(' ')}.${values.join('.')}.${body}`)
    .digest('hex');
}

const SIGNED_HEADERS = ['content-type', 'x-event-id', 'x-event-type'];

const fetchTransport: Transport = async (delivery) => {
  const response = await fetch(delivery.url, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.body,
  });
  return { status: response.status, body: await response.text() };
};

export async function startCoinbaseStandin(): Promise<CoinbaseStandin> {
  const keys = new Map<string, KeyObject>();
  const subscriptions = new Map<string, { url: string; secret: string }>();
  const byIdempotencyKey = new Map<string, string>();
  const links = new Map<string, StandinLink>();
  const requests: StandinRequest[] = [];
  const deliveries: Delivery[] = [];
  let base = '';

  const publicLink = (link: StandinLink) => {
    const { apiKeyId: _owner, ...rest } = link;
    return rest;
  };

  async function refusal(
    request: IncomingMessage,
    path: string,
  ): Promise<{ reason?: string; apiKeyId?: string }> {
    const header = request.headers.authorization;
    if (!header?.startsWith('Bearer ')) return { reason: 'no bearer token' };
    const token = header.slice('Bearer '.length);
    let kid: string | undefined;
    let nonce: unknown;
    let alg: string | undefined;
    let typ: string | undefined;
    try {
      const protectedHeader = decodeProtectedHeader(token);
      kid = protectedHeader.kid;
      nonce = protectedHeader.nonce;
      alg = protectedHeader.alg;
      typ = protectedHeader.typ;
    } catch {
      return { reason: 'not a JWT' };
    }
    if (alg !== 'ES256') return { reason: `alg ${alg}` };
    if (typ !== 'JWT') return { reason: `typ ${typ}` };
    if (typeof nonce !== 'string' || !/^[0-9a-f]{16,}$/.test(nonce)) return { reason: 'no nonce' };
    const key = kid === undefined ? undefined : keys.get(kid);
    if (!key || kid === undefined) return { reason: `unknown kid ${kid}` };
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ['ES256'], issuer: 'cdp', subject: kid });
      if (typeof payload.nbf !== 'number' || typeof payload.exp !== 'number') return { reason: 'no nbf/exp' };
      if (payload.exp - payload.nbf > 120) return { reason: 'valid for more than 2 minutes' };
      const expected = `${request.method} ${request.headers.host}${path}`;
      const uris = payload.uris;
      if (!Array.isArray(uris) || uris.length !== 1 || uris[0] !== expected)
        return { reason: `uris ${JSON.stringify(uris)} is not [${expected}]` };
      return { apiKeyId: kid };
    } catch (error) {
      return { reason: (error as Error).message };
    }
  }

  function answer(response: ServerResponse, status: number, body: unknown) {
    response.statusCode = status;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(body));
  }
  const error = (response: ServerResponse, status: number, errorType: string, errorMessage: string) =>
    answer(response, status, { errorType, errorMessage, correlationId: randomUUID() });

  async function api(request: IncomingMessage, response: ServerResponse, path: string, body: string) {
    const idempotencyKey = request.headers['x-idempotency-key'] as string | undefined;
    let parsed: unknown;
    try {
      parsed = body.length > 0 ? JSON.parse(body) : undefined;
    } catch {
      parsed = body;
    }
    const auth = await refusal(request, path);
    requests.push({ method: request.method ?? '', path, refused: auth.reason, idempotencyKey, body: parsed });
    if (auth.reason !== undefined)
      return error(response, 401, 'unauthorized', `Unauthorized: ${auth.reason}`);
    const owner = auth.apiKeyId as string;
    const failure = standin.failures.shift();
    if (failure) return error(response, failure.status, 'internal_server_error', failure.message);

    const match = /^\/api\/v1\/payment-links(?:\/([0-9a-f]{24})(\/deactivate)?)?$/.exec(path);
    if (!match) return error(response, 404, 'not_found', 'Not found');
    const [, id, deactivate] = match;
    if (id === undefined) {
      if (request.method !== 'POST') return error(response, 405, 'invalid_request', 'Method not allowed');
      return create(response, owner, parsed, idempotencyKey);
    }
    const link = links.get(id);
    if (!link || link.apiKeyId !== owner) return error(response, 404, 'not_found', 'Payment link not found');
    if (deactivate === undefined && request.method === 'GET') return answer(response, 200, publicLink(link));
    if (deactivate !== undefined && request.method === 'POST') {
      if (link.status !== 'ACTIVE')
        return error(response, 400, 'invalid_request', `Payment link is ${link.status}, not ACTIVE`);
      link.status = 'DEACTIVATED';
      link.updatedAt = new Date().toISOString();
      return answer(response, 200, publicLink(link));
    }
    return error(response, 405, 'invalid_request', 'Method not allowed');
  }

  function create(
    response: ServerResponse,
    owner: string,
    body: unknown,
    idempotencyKey: string | undefined,
  ) {
    const seen =
      idempotencyKey === undefined ? undefined : byIdempotencyKey.get(`${owner} ${idempotencyKey}`);
    if (seen !== undefined) return answer(response, 201, publicLink(links.get(seen) as StandinLink));
    const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const problems: string[] = [];
    if (typeof input.amount !== 'string' || !/^(0|[1-9]\d*)\.\d{2}$/.test(input.amount))
      problems.push('amount');
    if (input.currency !== 'USDC') problems.push('currency');
    if (typeof input.network !== 'string') problems.push('network');
    if (typeof input.expiresAt !== 'string' || Number.isNaN(Date.parse(input.expiresAt)))
      problems.push('expiresAt');
    if (input.description !== undefined && typeof input.description !== 'string')
      problems.push('description');
    const metadata = input.metadata ?? {};
    if (typeof metadata !== 'object' || metadata === null) problems.push('metadata');
    const allowed = [
      'amount',
      'currency',
      'network',
      'description',
      'expiresAt',
      'metadata',
      'successRedirectUrl',
      'failRedirectUrl',
    ];
    for (const key of Object.keys(input)) if (!allowed.includes(key)) problems.push(key);
    if (problems.length > 0)
      return error(response, 400, 'invalid_request', `Invalid request: ${problems.join(', ')}`);
    const id = randomBytes(12).toString('hex');
    const now = new Date().toISOString();
    const link: StandinLink = {
      id,
      url: `${base}/pay/${id}`,
      status: 'ACTIVE',
      amount: input.amount as string,
      currency: 'USDC',
      network: input.network as string,
      description: (input.description as string | undefined) ?? '',
      expiresAt: new Date(input.expiresAt as string).toISOString(),
      metadata: metadata as Record<string, string>,
      createdAt: now,
      updatedAt: now,
      apiKeyId: owner,
    };
    links.set(id, link);
    if (idempotencyKey !== undefined) byIdempotencyKey.set(`${owner} ${idempotencyKey}`, id);
    return answer(response, 201, publicLink(link));
  }

  async function page(request: IncomingMessage, response: ServerResponse, id: string) {
    const link = links.get(id);
    response.setHeader('content-type', 'text/html; charset=utf-8');
    if (!link) {
      response.statusCode = 404;
      return response.end('<!doctype html><title>Not found</title><h1>No such payment link</h1>');
    }
    let note = '';
    if (request.method === 'POST') {
      if (link.status === 'ACTIVE') {
        const delivered = await standin.settle(id, 'payment_link.payment.success');
        note = `<p id="result">Paid; the merchant answered ${delivered.status}.</p>`;
      } else note = `<p id="result">This link is ${link.status}.</p>`;
    }
    const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    response.statusCode = 200;
    response.end(
      `<!doctype html><html><head><title>Pay ${esc(link.amount)} USDC</title></head><body>
<h1>Pay <span id="amount">${esc(link.amount)}</span> USDC on ${esc(link.network)}</h1>
<p id="description">${esc(link.description)}</p>
<p>Status: <span id="status">${link.status}</span></p>
${note}
<form method="post" action="/pay/${link.id}"><button type="submit" id="pay"${link.status === 'ACTIVE' ? '' : ' disabled'}>Pay</button></form>
</body></html>`,
    );
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = new URL(request.url ?? '/', 'http://standin').pathname;
      const pay = /^\/pay\/([0-9a-f]{24})$/.exec(path);
      if (standin.down && !pay) {
        request.socket.destroy();
        return;
      }
      const handled = pay
        ? page(request, response, pay[1] as string)
        : api(request, response, path, Buffer.concat(chunks).toString('utf8'));
      handled.catch((e: unknown) => {
        if (!response.headersSent) error(response, 500, 'internal_server_error', (e as Error).message);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const standin: CoinbaseStandin = {
    url: base,
    links,
    requests,
    deliveries,
    failures: [],
    down: false,
    transport: fetchTransport,
    registerKey(key) {
      keys.set(key.apiKeyId, key.publicKey);
    },
    subscribe(apiKeyId, subscription) {
      subscriptions.set(apiKeyId, subscription);
    },
    async settle(id, eventType) {
      const link = links.get(id);
      if (!link) throw new Error(`no payment link ${id}`);
      link.status =
        eventType === 'payment_link.payment.success'
          ? 'COMPLETED'
          : eventType === 'payment_link.payment.failed'
            ? 'FAILED'
            : 'EXPIRED';
      link.updatedAt = new Date().toISOString();
      return standin.send(standin.delivery(link, eventType));
    },
    async send(delivery) {
      deliveries.push(delivery);
      return standin.transport(delivery);
    },
    delivery(link, eventType, options = {}) {
      const subscription = subscriptions.get(link.apiKeyId);
      if (!subscription) throw new Error(`no webhook subscription for ${link.apiKeyId}`);
      const body = JSON.stringify({ ...publicLink(link), eventType });
      const eventId = options.id ?? randomUUID();
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-event-id': eventId,
        'x-event-type': eventType,
        'x-hook0-id': eventId,
      };
      const t = String(options.timestamp ?? Math.floor(Date.now() / 1000));
      const v1 = hook0V1(subscription.secret, t, SIGNED_HEADERS, headers, body);
      headers['x-hook0-signature'] = `t=${t},h=${SIGNED_HEADERS.join(' ')},v1=${v1}`;
      return { url: subscription.url, headers, body };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return standin;
}
