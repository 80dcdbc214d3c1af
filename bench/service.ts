import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import type { Executor } from '../src/db/executor.ts';
import { freePort } from '../src/lib/net.ts';
import { TEST_SECRET_KEY } from '../test/harness.ts';

/**
 * What the benchmarks that measure the service from outside share: the service started as
 * production starts it, in a process of its own; the load from another (bench/load-process.ts);
 * that process's CPU time and resident memory read from /proc.
 */

const run = promisify(execFile);
export const ROOT = new URL('..', import.meta.url).pathname;
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
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** CPU time (µs, user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS;
}

/** Resident memory (MB) of a process, VmRSS of /proc/<pid>/status. */
export function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) / 1024;
}

/** What bench/load-process.ts takes: see there. */
export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  connections?: number;
  seconds?: number;
  requests?: number;
  expectStatus?: number | number[];
}

/** What a load run measured (latencies in ms). */
export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

export type LoadAnswers = LoadResult & { statuses: Record<string, number>; cpuMicros: number };

/** Load from its own process (bench/load-process.ts), so client and server do not share a CPU loop. */
export async function loadFrom(spec: LoadSpec): Promise<LoadAnswers> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'bench/load-process.ts', JSON.stringify(spec)],
    { cwd: ROOT, maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/**
 * A load run and the CPU time (µs) per request used during it by the server process `pid`, by
 * the load generator and, when measured, by the PostgreSQL backends serving the database.
 */
export type Measured = LoadAnswers & {
  cpuPerRequest: number;
  loadCpuPerRequest: number;
  databaseCpuPerRequest?: number;
};

/**
 * CPU time (µs) used so far by each backend connected to `db`'s database (the server runs on
 * this machine, as the tests' PostgreSQL does), by process id.
 */
export async function backendCpu(db: Executor): Promise<Map<number, number>> {
  const { rows } = await sql<{ pid: number }>`
    SELECT pid FROM pg_stat_activity WHERE datname = current_database()`.execute(db);
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      cpu.set(pid, cpuMicros(pid));
    } catch {
      // Gone since it was listed.
    }
  }
  return cpu;
}

/** The CPU used between two readings of backendCpu by the backends present in both. */
function backendCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let used = 0;
  for (const [pid, micros] of after) {
    const start = before.get(pid);
    if (start !== undefined) used += micros - start;
  }
  return used;
}

/**
 * `spec`'s load against the server process `pid`; with `database`, the CPU of the PostgreSQL
 * backends of its database is measured too.
 */
export async function measure(spec: LoadSpec, pid: number, database?: Executor): Promise<Measured> {
  const backendsBefore = database && (await backendCpu(database));
  const before = cpuMicros(pid);
  const result = await loadFrom(spec);
  const used = cpuMicros(pid) - before;
  const backendsAfter = database && (await backendCpu(database));
  const requests = Math.max(1, result.requests);
  return {
    ...result,
    cpuPerRequest: used / requests,
    loadCpuPerRequest: result.cpuMicros / requests,
    ...(backendsBefore &&
      backendsAfter && {
        databaseCpuPerRequest: backendCpuBetween(backendsBefore, backendsAfter) / requests,
      }),
  };
}

/** Builds dist/ when it is missing or older than its inputs, as `npm start` does. */
export function buildIfStale(): void {
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--if-stale'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

/** GET `url` until it answers 200. */
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

export interface Service {
  child: ChildProcess;
  pid: number;
  url: string;
  /** Milliseconds from spawn to the first 200 of /readyz. */
  readyMs: number;
  stop(): Promise<void>;
}

/**
 * The service as production runs it: the build (dist/main.js) under plain node with `npm start`'s
 * flags, NODE_ENV production, role api, on the bench's database (migrated, with its data in),
 * its logs at production's level (a line per request) to a file, as a deployment's would go to
 * its collector; `env` adds to its configuration. `profile`: under `node --cpu-prof` when
 * BENCH_CPU_PROF names a folder.
 */
export async function startService(
  databaseUrl: string,
  options: { env?: Record<string, string>; profile?: boolean } = {},
): Promise<Service> {
  const port = await freePort();
  const logPath = path.join(tmpdir(), `bench-service-${port}.log`);
  const log = openSync(logPath, 'w');
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...NODE_FLAGS,
      ...(options.profile && CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []),
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
        ...options.env,
      },
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
