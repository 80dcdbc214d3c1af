import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { LoadSpec } from './service.ts';

/**
 * A load generator run in its own process (`tsx bench/load-process.ts '<json>'`), so the
 * service under test does not share its event loop with the client. Closed loop: `connections`
 * clients each send the next request when the last answers. A POST body and header values may
 * carry `{{n}}`, replaced by a text unique to each request, `{{ip}}`, by an IPv4 address
 * unique to each request (a client address behind a proxy, in X-Forwarded-For), and
 * `{{address}}`, by an Ethereum address (lower case) unique to each request. Runs for
 * `seconds`, or until `requests` have been sent when that is given. Prints one JSON line: the
 * LoadResult, the count of each status answered and the CPU time (µs) this process used.
 * Answers other than `expectStatus` (200 unless given) count as errors.
 */
const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
const connections = spec.connections ?? 32;
const agent = new Agent({ keepAlive: true, maxSockets: connections });
const latencies: number[] = [];
const statuses: Record<string, number> = {};
let errors = 0;
const expected = [spec.expectStatus ?? 200].flat();
let counter = 0;
let sent = 0;
const started = performance.now();
const cpuAtStart = process.cpuUsage();
const deadline = started + (spec.seconds ?? 3) * 1000;

/** `template` with this request's `{{n}}`, `{{ip}}` and `{{address}}`. */
function filled(template: string, n: number): string {
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

function send(): Promise<number> {
  const n = counter++;
  const body = spec.body === undefined ? undefined : filled(spec.body, n);
  const headers = Object.fromEntries(
    Object.entries(spec.headers ?? {}).map(([name, value]) => [name, filled(value, n)]),
  );
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      spec.url,
      {
        agent,
        method: spec.method ?? 'GET',
        headers: {
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

await Promise.all(
  Array.from({ length: connections }, async () => {
    while (spec.requests === undefined ? performance.now() < deadline : sent++ < spec.requests) {
      const t0 = performance.now();
      const status = await send();
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (!expected.includes(status)) errors++;
      latencies.push(performance.now() - t0);
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuAtStart);
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
process.stdout.write(
  `${JSON.stringify({ requests: latencies.length, seconds, perSecond: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99), errors, statuses, cpuMicros: cpu.user + cpu.system })}\n`,
);
