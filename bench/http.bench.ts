import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import { insertCollection } from '../test/factories.ts';
import { setupTest } from '../test/harness.ts';
import { insertItem } from '../test/support/token-requests.ts';
import {
  buildIfStale,
  type LoadSpec,
  loadFrom,
  type Measured,
  measure,
  median,
  ROOT,
  rssMb,
  type Service,
  startService,
} from './service.ts';

const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 50);
/** Pairs (baseline, route) per figure: the machine's noise shows in their spread. */
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);
/** Starts of the service measured from spawn to ready; the last one serves the load. */
const STARTS = Number(process.env.BENCH_HTTP_STARTS ?? 3);
/** Items of the large collection GET /v1/items pages through. */
const LIST_ITEMS = Number(process.env.BENCH_HTTP_LIST_ITEMS ?? 100_000);
/** Only the figures whose name contains this text (e.g. `items/{item_id}`). */
const ONLY = process.env.BENCH_HTTP_ONLY;

/** A figure's load: GET `url` from CONNECTIONS clients for SECONDS. */
const load = (url: string, headers: Record<string, string> = {}): LoadSpec => ({
  url,
  headers,
  connections: CONNECTIONS,
  seconds: SECONDS,
});

const GOALS = { startMs: 3000, rssAfterStartMb: 200, rssUnderLoadMb: 250 };

function line(name: string, result: Measured, baseline?: Measured): string {
  const ratio = baseline
    ? `  ${(result.perSecond / baseline.perSecond).toFixed(3)}× baseline req/s, ${(baseline.cpuPerRequest / result.cpuPerRequest).toFixed(3)}× baseline by CPU`
    : '  (baseline)';
  return `${name.padEnd(56)} ${result.perSecond.toFixed(0).padStart(6)} req/s  p50 ${result.p50Ms.toFixed(2)} ms  p99 ${result.p99Ms.toFixed(2)} ms  errors ${result.errors}  ${result.cpuPerRequest.toFixed(0)} µs CPU/req${ratio}`;
}

/** Spawns the baseline server; its url and the milliseconds from spawn to its url printed. */
async function startBaseline(
  databaseUrl: string,
): Promise<{ child: ChildProcess; url: string; readyMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/baseline-server.ts', databaseUrl], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const [url] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, url, readyMs: performance.now() - started };
}

/**
 * The service started as in production (bench/http.bench.ts startService: the build under plain
 * node, its own process) against bare Fastify + pg routes running the same queries and answering
 * the same rows as JSON, served by a process of their own over the same database; the load comes
 * from a third process. Each figure is measured right after a baseline run of its own, so its
 * ratio compares two runs under the same conditions of this shared machine. Two ratios: requests
 * per second, and CPU time of the server's process per request (/proc/<pid>/stat; baseline's over
 * the route's: PostgreSQL's own CPU is in neither), which a machine busy with other work disturbs
 * less. Also printed: the service's time from spawn to ready and its resident memory after start
 * and at most under the load, each beside the baseline server's and the goal.
 */
export async function httpBench(): Promise<void> {
  buildIfStale();
  const env = await setupTest();
  const db = env.database.db;
  let baseline: Awaited<ReturnType<typeof startBaseline>> | undefined;
  let service: Service | undefined;
  try {
    await env.insertNetwork(31337);
    const { admin, organizationId } = await env.createTenant();
    const key = (
      await env.call('POST', '/v1/api-keys', { token: admin.token, body: { name: 'bench' } })
    ).json().key as string;
    const collection = await insertCollection(db, { organizationId });
    const item = await insertItem(db, { collectionId: collection.id, organizationId });
    // The large collection, in one statement: the items table's columns as the factories fill them.
    const large = await insertCollection(db, { organizationId });
    await sql`
      INSERT INTO items (id, organization_id, collection_id, attributes, locked, max_supply,
                         token_id, token_status, minted_supply, held_supply, created_at, updated_at)
      SELECT gen_random_uuid(), ${organizationId}, ${large.id},
             jsonb_build_object('name', 'item ' || n, 'rank', n), true, 1, n, 'NOT_MINTED', 0, 0,
             timestamptz '2026-01-01' + n * interval '1 millisecond',
             timestamptz '2026-01-01' + n * interval '1 millisecond'
      FROM generate_series(1, ${LIST_ITEMS}::int) AS n`.execute(db);
    await sql`ANALYZE items`.execute(db);

    baseline = await startBaseline(env.databaseUrl);
    const baselineRssAtStart = rssMb(baseline.child.pid!);
    const readyTimes: number[] = [];
    for (let start = 0; start < STARTS; start++) {
      if (service) await service.stop();
      service = await startService(env.databaseUrl, { profile: start === STARTS - 1 });
      readyTimes.push(service.readyMs);
    }
    const svc = service!;
    const rssAtStart = rssMb(svc.pid);

    const listQuery = `collection_id=${large.id}&limit=100`;
    const baselineItem = [
      'baseline: bare Fastify + pg, item by primary key',
      `${baseline.url}/items/${item.id}`,
    ];
    const baselineList = [
      'baseline: bare Fastify + pg, keyset page of 100',
      `${baseline.url}/items?${listQuery}`,
    ];
    // name, url, headers, [baseline's name, baseline's url], goal (ratio to the baseline),
    // goal of the p99 (ms) when it has one
    const figures: [string, string, Record<string, string>, string[], number, number?][] = [
      [
        'GET /v1/items/{item_id} (API key)',
        `${svc.url}/v1/items/${item.id}`,
        { 'x-api-key': key },
        baselineItem,
        0.8,
        10,
      ],
      ['GET /v1/me (API key)', `${svc.url}/v1/me`, { 'x-api-key': key }, baselineItem, 0.6],
      [
        'GET /v1/me (access token)',
        `${svc.url}/v1/me`,
        { authorization: `Bearer ${admin.token}` },
        baselineItem,
        0.6,
      ],
      [
        `GET /v1/items?collection_id&limit=100 (${LIST_ITEMS} items)`,
        `${svc.url}/v1/items?${listQuery}`,
        { 'x-api-key': key },
        baselineList,
        0.5,
      ],
    ];

    const measured = figures.filter(([name]) => ONLY === undefined || name.includes(ONLY));
    // Resident memory of both servers, sampled while the load runs.
    let maxRss = rssAtStart;
    let maxBaselineRss = baselineRssAtStart;
    let figureMaxRss = 0;
    const sampler = setInterval(() => {
      const rss = rssMb(svc.pid);
      maxRss = Math.max(maxRss, rss);
      figureMaxRss = Math.max(figureMaxRss, rss);
      maxBaselineRss = Math.max(maxBaselineRss, rssMb(baseline!.child.pid!));
    }, 100);
    const out: string[] = [];
    try {
      // Warm-up: JIT and connection pools of both servers.
      for (const [, target, headers, [, baselineTarget]] of measured) {
        await loadFrom({ url: baselineTarget!, connections: CONNECTIONS, seconds: 1 });
        await loadFrom({ url: target, headers, connections: CONNECTIONS, seconds: 1 });
      }
      for (const [name, target, headers, [baselineName, baselineTarget], goal, p99Goal] of measured) {
        const byRate: number[] = [];
        const byCpu: number[] = [];
        const p99s: number[] = [];
        const baselineP99s: number[] = [];
        figureMaxRss = 0;
        for (let round = 0; round < ROUNDS; round++) {
          const base = await measure(load(baselineTarget!), baseline.child.pid!);
          const result = await measure(load(target, headers), svc.pid);
          out.push(line(baselineName!, base));
          out.push(line(name, result, base));
          byRate.push(result.perSecond / base.perSecond);
          byCpu.push(base.cpuPerRequest / result.cpuPerRequest);
          p99s.push(result.p99Ms);
          baselineP99s.push(base.p99Ms);
        }
        out.push(
          `${`${name}: median of ${ROUNDS}`.padEnd(56)} ${median(byRate).toFixed(3)}× baseline req/s, ${median(byCpu).toFixed(3)}× baseline by CPU  goal ≥ ${goal}×  ${median(byRate) >= goal ? 'met' : 'NOT met'}  (service at most ${figureMaxRss.toFixed(0)} MB resident)`,
        );
        if (p99Goal !== undefined)
          out.push(
            `${`${name}: p99, median of ${ROUNDS}`.padEnd(56)} ${median(p99s).toFixed(1)} ms at ${CONNECTIONS} connections (the baseline's ${median(baselineP99s).toFixed(1)} ms)  goal < ${p99Goal} ms  ${median(p99s) < p99Goal ? 'met' : 'NOT met'}`,
          );
      }
    } finally {
      clearInterval(sampler);
    }
    const mb = (value: number) => `${value.toFixed(0)} MB`;
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    out.push(
      `${'baseline: bare Fastify + pg (tsx), spawn to listening'.padEnd(56)} ${ms(baseline.readyMs)}`,
      `${`service (node dist/main.js, api): spawn to /readyz 200, ${STARTS} starts`.padEnd(56)} ${readyTimes.map(ms).join(', ')}; median ${ms(median(readyTimes))}  goal < ${ms(GOALS.startMs)}  ${median(readyTimes) < GOALS.startMs ? 'met' : 'NOT met'}`,
      `${'resident memory after start'.padEnd(56)} service ${mb(rssAtStart)}, baseline ${mb(baselineRssAtStart)}  goal < ${mb(GOALS.rssAfterStartMb)}  ${rssAtStart < GOALS.rssAfterStartMb ? 'met' : 'NOT met'}`,
      `${'resident memory, maximum under load'.padEnd(56)} service ${mb(maxRss)}, baseline ${mb(maxBaselineRss)}  goal < ${mb(GOALS.rssUnderLoadMb)}  ${maxRss < GOALS.rssUnderLoadMb ? 'met' : 'NOT met'}`,
    );
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await service?.stop();
    baseline?.child.stdin?.end();
    await env.close();
  }
}
