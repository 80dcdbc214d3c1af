import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * A load generator run in its own process (`tsx bench/load-process.ts '<json>'`), so the
 * service under test does not share its event loop with the client. Closed loop: `connections`
 * clients each send the next request when the last answers. A POST body may carry `{{n}}`,
 * replaced by a number unique to each request. Runs for `seconds`, or until `requests` have been
 * sent when that is given. Prints one JSON LoadResult line.
 */
interface Spec {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  connections?: number;
  seconds?: number;
  requests?: number;
  /** The answers expected (200 unless given); any other counts as an error. */
  expectStatus?: number | number[];
  headers?: Record<string, string>;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as Spec;
const connections = spec.connections ?? 32;
const agent = new Agent({ keepAlive: true, maxSockets: connections });
const latencies: number[] = [];
const statuses: Record<string, number> = {};
let errors = 0;
const expected = [spec.expectStatus ?? 200].flat();
let counter = 0;
let sent = 0;
const started = performance.now();
const deadline = started + (spec.seconds ?? 3) * 1000;

function send(): Promise<number> {
  const body = spec.body?.replaceAll('{{n}}', `${process.pid}-${counter++}`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      spec.url,
      {
        agent,
        method: spec.method ?? 'GET',
        headers: {
          ...spec.headers,
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
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
process.stdout.write(
  `${JSON.stringify({ requests: latencies.length, seconds, perSecond: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99), errors, statuses })}\n`,
);
