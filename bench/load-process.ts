import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { LoadSpec } from './service.ts';

/**
 * A load generator run in its own process (`tsx bench/load-process.ts '<json>'`), so the
 * service under test does not share its event loop with the client. Closed loop: `connections`
 * keep-alive connections each send the next request when the last answered. A POST body and
 * header values may carry `{{n}}`, replaced by a text unique to each request, `{{ip}}`, by an IPv4
 * address unique to each request (a client address behind a proxy, in X-Forwarded-For), and
 * `{{address}}`, by an Ethereum address (lower case) unique to each request. Runs for `seconds`,
 * or until `requests` have been sent when that is given. Prints one JSON line: the LoadResult,
 * the count of each status answered and the CPU time (µs) this process used. Answers other than
 * `expectStatus` (200 unless given) count as errors.
 *
 * It speaks HTTP/1.1 on plain sockets, each request's bytes written at once and each answer read
 * only as far as its status and length: the generator costs a few tens of µs of CPU per request,
 * so on a machine of two cores it takes as little as it can from the service it measures. A
 * latency runs from the request's write on its connection to its answer's last byte.
 */
const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const connections = spec.connections ?? 32;
const url = new URL(spec.url);
const latencies: number[] = [];
const statuses: Record<string, number> = {};
let errors = 0;
const expected = [spec.expectStatus ?? 200].flat();
let counter = 0;
let sent = 0;

/** `template` with this request's `{{n}}`, `{{ip}}` and `{{address}}`. */
function filled(template: string, n: number): string {
  if (!template.includes('{{')) return template;
  // 2^24 addresses of 10.0.0.0/8, apart for each process.
  const k = (process.pid * 7919 + n) % 0x1000000;
  return template
    .replaceAll('{{n}}', `${process.pid}-${n}`)
    .replaceAll('{{ip}}', `10.${k >> 16}.${(k >> 8) & 0xff}.${k & 0xff}`)
    .replaceAll(
      '{{address}}',
      `0x${process.pid.toString(16).padStart(8, '0')}${n.toString(16).padStart(32, '0')}`,
    );
}

/** Request n's bytes. */
function requestBytes(n: number): Buffer {
  const body = spec.body === undefined ? undefined : Buffer.from(filled(spec.body, n));
  const lines = [`${spec.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(spec.headers ?? {})) lines.push(`${name}: ${filled(value, n)}`);
  if (body !== undefined) lines.push('content-type: application/json', `content-length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
  return body === undefined ? head : Buffer.concat([head, body]);
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CHUNKED_END = Buffer.from('0\r\n\r\n');

/** Where an answer that starts `data` ends (its length), or undefined while it is incomplete. */
function answerLength(data: Buffer): number | undefined {
  const headEnd = data.indexOf(HEAD_END);
  if (headEnd < 0) return undefined;
  const head = data.toString('latin1', 0, headEnd).toLowerCase();
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head)?.[1];
  if (length !== undefined) {
    const total = headEnd + 4 + Number(length);
    return data.length >= total ? total : undefined;
  }
  if (head.includes('\r\ntransfer-encoding: chunked')) {
    const end = data.indexOf(CHUNKED_END, headEnd + 4);
    return end < 0 ? undefined : end + CHUNKED_END.length;
  }
  return headEnd + 4;
}

/** One keep-alive connection: sends a request and answers its status once its answer is in. */
class Connection {
  private socket: Socket;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (status: number) => void; reject: (error: Error) => void } | undefined;

  constructor() {
    this.socket = this.open();
  }

  private open(): Socket {
    const socket = connect({ host: url.hostname, port: Number(url.port || 80), noDelay: true });
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('the connection closed')));
    return socket;
  }

  private received(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const length = answerLength(this.buffered);
    if (length === undefined) return;
    const status = Number(this.buffered.toString('latin1', 9, 12));
    this.buffered = this.buffered.subarray(length);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve(status);
  }

  private fail(error: Error): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }

  send(bytes: Buffer): Promise<number> {
    if (this.socket.destroyed) {
      this.buffered = Buffer.alloc(0);
      this.socket = this.open();
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(bytes);
    });
  }

  close(): void {
    this.socket.removeAllListeners('close');
    this.socket.destroy();
  }
}

// A fixed number of requests is built before the clock starts.
const prepared =
  spec.requests === undefined ? undefined : Array.from({ length: spec.requests }, (_, n) => requestBytes(n));
const pool = Array.from({ length: connections }, () => new Connection());
const started = performance.now();
const cpuAtStart = process.cpuUsage();
const deadline = started + (spec.seconds ?? 3) * 1000;

await Promise.all(
  pool.map(async (connection) => {
    while (spec.requests === undefined ? performance.now() < deadline : sent++ < spec.requests) {
      const n = counter++;
      const bytes = prepared?.[n] ?? requestBytes(n);
      const t0 = performance.now();
      let status: number;
      try {
        status = await connection.send(bytes);
      } catch {
        status = 0;
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (!expected.includes(status)) errors++;
      latencies.push(performance.now() - t0);
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuAtStart);
for (const connection of pool) connection.close();
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
process.stdout.write(
  `${JSON.stringify({ requests: latencies.length, seconds, perSecond: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99), errors, statuses, cpuMicros: cpu.user + cpu.system })}\n`,
);
