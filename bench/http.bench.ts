import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { insertCollection } from '../test/factories.ts';
import { setupTest } from '../test/harness.ts';
import { insertItem } from '../test/support/token-requests.ts';
import type { LoadResult } from './load.ts';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 50);
/** Pairs (baseline, route) per figure: the machine's noise shows in their spread. */
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** Load from its own process (bench/load-process.ts), so client and service do not share a CPU loop. */
async function loadFrom(
  url: string,
  headers: Record<string, string>,
  seconds = SECONDS,
): Promise<LoadResult> {
  const spec = { url, headers, seconds, connections: CONNECTIONS };
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'bench/load-process.ts', JSON.stringify(spec)],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** A load run and the CPU time (µs) the server process used per request during it. */
type Measured = LoadResult & { cpuPerRequest: number };

async function measure(
  url: string,
  headers: Record<string, string>,
  cpu: () => Promise<number>,
): Promise<Measured> {
  const before = await cpu();
  const result = await loadFrom(url, headers);
  return { ...result, cpuPerRequest: ((await cpu()) - before) / Math.max(1, result.requests) };
}

function line(name: string, result: Measured, baseline?: Measured): string {
  const ratio = baseline
    ? `  ${(result.perSecond / baseline.perSecond).toFixed(3)}× baseline req/s, ${(baseline.cpuPerRequest / result.cpuPerRequest).toFixed(3)}× baseline by CPU`
    : '  (baseline)';
  return `${name.padEnd(52)} ${result.perSecond.toFixed(0).padStart(6)} req/s  p50 ${result.p50Ms.toFixed(2)} ms  p99 ${result.p99Ms.toFixed(2)} ms  errors ${result.errors}  ${result.cpuPerRequest.toFixed(0)} µs CPU/req${ratio}`;
}

/**
 * The authenticated read path against a bare Fastify + pg route that selects the same item by
 * primary key and returns it as JSON, served by its own process over the same database; the load
 * comes from a third process. Each figure is measured right after a baseline run of its own, so
 * its ratio compares two runs under the same conditions of this shared machine. Two ratios:
 * requests per second, and CPU time of the server's process per request (baseline's over the
 * route's: PostgreSQL's own CPU is in neither), which a machine busy with other work disturbs less.
 *
 * The service itself runs in the bench's process (the test harness's app listening on a port),
 * not yet as a separate production process.
 */
export async function httpBench(): Promise<void> {
  const env = await setupTest();
  const baselineServer = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/baseline-server.ts', env.databaseUrl],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  try {
    const lines = createInterface({ input: baselineServer.stdout! });
    const [baselineUrl] = (await once(lines, 'line')) as [string];
    const url = await env.app.listen({ port: 0, host: '127.0.0.1' });
    await env.insertNetwork(31337);
    const { admin, organizationId } = await env.createTenant();
    const key = (
      await env.call('POST', '/v1/api-keys', { token: admin.token, body: { name: 'bench' } })
    ).json().key as string;
    const collection = await insertCollection(env.database.db, { organizationId });
    const item = await insertItem(env.database.db, { collectionId: collection.id, organizationId });

    const baselineItem = `${baselineUrl}/items/${item.id}`;
    const figures: [string, string, Record<string, string>][] = [
      ['GET /v1/items/{item_id} (API key)', `${url}/v1/items/${item.id}`, { 'x-api-key': key }],
      ['GET /v1/me (API key)', `${url}/v1/me`, { 'x-api-key': key }],
      ['GET /v1/me (access token)', `${url}/v1/me`, { authorization: `Bearer ${admin.token}` }],
    ];
    // Warm-up: JIT and connection pools of both servers.
    await loadFrom(baselineItem, {}, 1);
    for (const [, target, headers] of figures) await loadFrom(target, headers, 1);

    const baselineCpu = async () =>
      ((await (await fetch(`${baselineUrl}/cpu`)).json()) as { micros: number }).micros;
    const serviceCpu = async () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    };
    const out: string[] = [];
    for (const [name, target, headers] of figures) {
      const byRate: number[] = [];
      const byCpu: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const baseline = await measure(baselineItem, {}, baselineCpu);
        const result = await measure(target, headers, serviceCpu);
        out.push(line('baseline: bare Fastify + pg, item by primary key', baseline));
        out.push(line(name, result, baseline));
        byRate.push(result.perSecond / baseline.perSecond);
        byCpu.push(baseline.cpuPerRequest / result.cpuPerRequest);
      }
      out.push(
        `${`${name}: median of ${ROUNDS}`.padEnd(52)} ${median(byRate).toFixed(3)}× baseline req/s, ${median(byCpu).toFixed(3)}× baseline by CPU`,
      );
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    baselineServer.stdin!.end();
    await env.close();
  }
}
