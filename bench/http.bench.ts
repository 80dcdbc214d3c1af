import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { freePort } from '../src/lib/net.ts';
import { insertCollection } from '../test/factories.ts';
import { setupTest, TEST_SECRET_KEY } from '../test/harness.ts';
import { insertItem } from '../test/support/token-requests.ts';
import type { LoadResult } from './load.ts';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
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
/** The node flags `npm start` gives the service (package.json), then any extra for an experiment. */
const NODE_FLAGS = [
  ...(
    /node ((?:--\S+ )*)dist\/main\.js/.exec(
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.start,
    )?.[1] ?? ''
  ).split(' '),
  ...(process.env.BENCH_NODE_FLAGS?.split(' ') ?? []),
].filter(Boolean);
/** A folder: the service runs under `node --cpu-prof` and writes its profile there on exit. */
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;

const GOALS = { startMs: 3000, rssAfterStartMb: 200, rssUnderLoadMb: 250 };
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** CPU time (µs, user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS;
}

/** Resident memory (MB) of a process, VmRSS of /proc/<pid>/status. */
function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) / 1024;
}

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

async function measure(url: string, headers: Record<string, string>, pid: number): Promise<Measured> {
  const before = cpuMicros(pid);
  const result = await loadFrom(url, headers);
  return { ...result, cpuPerRequest: (cpuMicros(pid) - before) / Math.max(1, result.requests) };
}

function line(name: string, result: Measured, baseline?: Measured): string {
  const ratio = baseline
    ? `  ${(result.perSecond / baseline.perSecond).toFixed(3)}× baseline req/s, ${(baseline.cpuPerRequest / result.cpuPerRequest).toFixed(3)}× baseline by CPU`
    : '  (baseline)';
  return `${name.padEnd(56)} ${result.perSecond.toFixed(0).padStart(6)} req/s  p50 ${result.p50Ms.toFixed(2)} ms  p99 ${result.p99Ms.toFixed(2)} ms  errors ${result.errors}  ${result.cpuPerRequest.toFixed(0)} µs CPU/req${ratio}`;
}

/** GET `url` until it answers 200; the milliseconds it took. */
async function waitFor200(url: string, child: ChildProcess, output: () => string): Promise<void> {
  for (const deadline = Date.now() + 120_000; ; ) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${output()}`);
    if (Date.now() > deadline) throw new Error(`${url} not 200 within 120 s:\n${output()}`);
    const status = await fetch(url).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Service {
  child: ChildProcess;
  pid: number;
  url: string;
  readyMs: number;
  stop(): Promise<void>;
}

/**
 * The service as production runs it: the build (dist/main.js) under plain node, NODE_ENV
 * production, role api, on the bench's database (migrated, with its data in); timed from spawn to
 * the first 200 of /readyz.
 */
async function startService(databaseUrl: string, profile: boolean): Promise<Service> {
  const port = await freePort();
  const logPath = path.join(tmpdir(), `bench-service-${port}.log`);
  const log = openSync(logPath, 'w');
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...NODE_FLAGS,
      ...(profile && CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []),
      'dist/main.js',
    ],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        DATABASE_URL: databaseUrl,
        SECRET_KEY: TEST_SECRET_KEY,
        PUBLIC_BASE_URL: 'http://tokens.test',
        ROLE: 'api',
        HOST: '127.0.0.1',
        PORT: String(port),
        ...(process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}),
      },
      // Its logs at production's level (a line per request) go to a file, as a deployment's
      // would go to its collector, not through this process.
      stdio: ['ignore', log, log],
    },
  );
  const output = () => readFileSync(logPath, 'utf8').slice(-8000);
  const url = `http://127.0.0.1:${port}`;
  await waitFor200(`${url}/readyz`, child, output);
  const readyMs = performance.now() - started;
  return {
    child,
    pid: child.pid!,
    url,
    readyMs,
    async stop() {
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      closeSync(log);
      rmSync(logPath, { force: true });
    },
  };
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
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--if-stale'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
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
      service = await startService(env.databaseUrl, start === STARTS - 1);
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
    // name, url, headers, [baseline's name, baseline's url], goal (ratio to the baseline)
    const figures: [string, string, Record<string, string>, string[], number][] = [
      [
        'GET /v1/items/{item_id} (API key)',
        `${svc.url}/v1/items/${item.id}`,
        { 'x-api-key': key },
        baselineItem,
        0.8,
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
        await loadFrom(baselineTarget!, {}, 1);
        await loadFrom(target, headers, 1);
      }
      for (const [name, target, headers, [baselineName, baselineTarget], goal] of measured) {
        const byRate: number[] = [];
        const byCpu: number[] = [];
        figureMaxRss = 0;
        for (let round = 0; round < ROUNDS; round++) {
          const base = await measure(baselineTarget!, {}, baseline.child.pid!);
          const result = await measure(target, headers, svc.pid);
          out.push(line(baselineName!, base));
          out.push(line(name, result, base));
          byRate.push(result.perSecond / base.perSecond);
          byCpu.push(base.cpuPerRequest / result.cpuPerRequest);
        }
        out.push(
          `${`${name}: median of ${ROUNDS}`.padEnd(56)} ${median(byRate).toFixed(3)}× baseline req/s, ${median(byCpu).toFixed(3)}× baseline by CPU  goal ≥ ${goal}×  (service at most ${figureMaxRss.toFixed(0)} MB resident)`,
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
