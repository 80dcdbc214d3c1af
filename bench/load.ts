import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

/** Closed-loop load: `connections` clients each sending the next request when the last answers. */
export async function load(
  url: string,
  options: {
    headers?: Record<string, string>;
    connections?: number;
    seconds?: number;
    expectStatus?: number;
  },
): Promise<LoadResult> {
  const connections = options.connections ?? 32;
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + (options.seconds ?? 3) * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const status = await get(url, agent, options.headers ?? {});
        if (status !== (options.expectStatus ?? 200)) errors++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors,
  };
}

export function report(name: string, result: LoadResult, baseline?: LoadResult): string {
  const ratio = baseline
    ? `  ${(result.perSecond / baseline.perSecond).toFixed(3)}× baseline`
    : '  (baseline)';
  return `${name.padEnd(44)} ${result.perSecond.toFixed(0).padStart(7)} req/s  p50 ${result.p50Ms.toFixed(2)} ms  p99 ${result.p99Ms.toFixed(2)} ms${ratio}${result.errors ? `  ERRORS ${result.errors}` : ''}`;
}

function get(url: string, agent: Agent, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
