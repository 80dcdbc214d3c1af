import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A JSON-RPC proxy in front of a local node (anvil) that fails a share of the requests, the way
 * real RPC endpoints do: it answers late or never, with HTTP 500 or 429, drops the connection,
 * and loses `eth_sendRawTransaction` calls either after the node got them (the caller sees an
 * error although the chain has the transaction) or before (the chain never sees it).
 *
 * Which request fails is decided by a seeded PRNG (mulberry32), so a seed gives the same
 * sequence of decisions; every decision is counted per kind in `stats`, so a test can assert
 * that each kind of fault really happened.
 *
 * JSON-RPC batches (a JSON array body) are handled: the fault applies to the whole HTTP request,
 * and the drop kinds apply when any call in the batch is `eth_sendRawTransaction`. viem's http
 * transport sends one call per request unless `batch` is turned on (the service leaves it off).
 *
 * Bounded: it listens on 127.0.0.1 only and forwards only to a loopback target.
 */
export type FaultKind =
  /** Forwarded, but the answer is held past the client's timeout, then the socket is destroyed. */
  | 'timeout'
  /** HTTP 500 with a plain-text body (a broken load balancer or node). */
  | 'http500'
  /** HTTP 429 with a JSON-RPC error body (a rate-limiting provider). */
  | 'http429'
  /** The connection is reset without an answer; nothing is forwarded. */
  | 'reset'
  /** eth_sendRawTransaction: forwarded to the node, then the socket is destroyed unanswered. */
  | 'sendLostAfterForward'
  /** eth_sendRawTransaction: not forwarded; answered with a JSON-RPC error. */
  | 'sendLostBeforeForward';

export const FAULT_KINDS: readonly FaultKind[] = [
  'timeout',
  'http500',
  'http429',
  'reset',
  'sendLostAfterForward',
  'sendLostBeforeForward',
];
const ANY_REQUEST_FAULTS: readonly FaultKind[] = ['timeout', 'http500', 'http429', 'reset'];

export interface FaultProxyOptions {
  /** The node, e.g. anvil's `http://127.0.0.1:PORT`; loopback only. */
  target: string;
  seed: number;
  /** Share of requests that fail, 0..1. Can be changed later through `faultRate`. */
  faultRate: number;
  /** How long a `timeout` fault holds a request: set it above the client's timeout. */
  timeoutHoldMs: number;
}

export interface FaultStats {
  requests: number;
  /** Requests forwarded to the node (faults that forward included). */
  forwarded: number;
  faults: Record<FaultKind, number>;
  /** JSON-RPC calls seen, by method (batch members counted one by one). */
  calls: Record<string, number>;
}

export interface FaultProxy {
  readonly url: string;
  readonly stats: FaultStats;
  /** Share of requests that fail from now on. */
  faultRate: number;
  /** Stops listening and destroys every open connection (held requests included). */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 5 * 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** mulberry32: a small, fast, seedable PRNG; enough for choosing faults reproducibly. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface JsonRpcCall {
  id?: unknown;
  method?: unknown;
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const target = new URL(options.target);
  if (target.protocol !== 'http:' || !LOOPBACK.has(target.hostname)) {
    throw new Error(`the fault proxy only forwards to a loopback http node, not ${options.target}`);
  }
  if (!(options.faultRate >= 0 && options.faultRate <= 1)) throw new Error('faultRate must be within 0..1');
  const random = mulberry32(options.seed);
  const stats: FaultStats = {
    requests: 0,
    forwarded: 0,
    faults: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>,
    calls: {},
  };
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const proxy = {
    url: '',
    stats,
    faultRate: options.faultRate,
    close: async () => {},
  };

  const forward = async (body: Buffer): Promise<{ status: number; contentType: string; text: string }> => {
    stats.forwarded++;
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array(body),
    });
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? 'application/json',
      text: await response.text(),
    };
  };

  const errorBody = (calls: JsonRpcCall[] | JsonRpcCall | undefined, code: number, message: string) => {
    const one = (call: JsonRpcCall | undefined) => ({
      jsonrpc: '2.0',
      id: call?.id ?? null,
      error: { code, message },
    });
    return JSON.stringify(Array.isArray(calls) ? calls.map(one) : one(calls));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> => {
    stats.requests++;
    let parsed: JsonRpcCall[] | JsonRpcCall | undefined;
    try {
      parsed = JSON.parse(body.toString('utf8')) as JsonRpcCall[] | JsonRpcCall;
    } catch {
      parsed = undefined;
    }
    const calls = parsed === undefined ? [] : Array.isArray(parsed) ? parsed : [parsed];
    for (const call of calls) {
      const method = typeof call.method === 'string' ? call.method : '?';
      stats.calls[method] = (stats.calls[method] ?? 0) + 1;
    }
    const sends = calls.some((c) => c.method === 'eth_sendRawTransaction');
    // Two draws per request whatever the outcome, so one seed gives one sequence of decisions.
    const failDraw = random();
    const kindDraw = random();
    const candidates = sends ? FAULT_KINDS : ANY_REQUEST_FAULTS;
    const kind =
      failDraw < proxy.faultRate ? candidates[Math.floor(kindDraw * candidates.length)] : undefined;
    if (kind) stats.faults[kind]++;

    switch (kind) {
      case undefined: {
        const answer = await forward(body);
        res.writeHead(answer.status, { 'content-type': answer.contentType });
        res.end(answer.text);
        return;
      }
      case 'timeout': {
        // The node may well have acted on it; the caller only sees that no answer came.
        forward(body).catch(() => {});
        const timer = setTimeout(() => {
          timers.delete(timer);
          req.socket.destroy();
        }, options.timeoutHoldMs);
        timers.add(timer);
        req.socket.once('close', () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return;
      }
      case 'http500':
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('Internal Server Error');
        return;
      case 'http429':
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(errorBody(parsed, -32005, 'Too Many Requests: rate limit exceeded'));
        return;
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'sendLostAfterForward':
        await forward(body).catch(() => {});
        req.socket.destroy();
        return;
      case 'sendLostBeforeForward':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(errorBody(parsed, -32603, 'request dropped before reaching the node'));
        return;
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.socket.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks)).catch(() => {
        // The node itself failed (stopped): a gateway error, as a real proxy would answer.
        if (!res.headersSent) {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end('Bad Gateway');
        } else {
          req.socket.destroy();
        }
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  proxy.url = `http://127.0.0.1:${port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  return proxy;
}
