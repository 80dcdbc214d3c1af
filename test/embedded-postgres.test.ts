import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { EmbeddedDatabase } from '../src/db/embedded.ts';

/**
 * The embedded PostgreSQL of the default mode (DESIGN.md "Embedded default"). Data directories
 * live under /tmp and are world-traversable: as root the server runs as the `postgres` user.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const CHILD_LIMIT_MS = 120_000;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit'] as const;

function quietLogger(lines: string[] = []) {
  return { info: (m: string) => void lines.push(m), debug: () => {} };
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('embedded PostgreSQL', () => {
  let root: string;
  let startEmbeddedPostgres: typeof import('../src/db/embedded.ts').startEmbeddedPostgres;
  let listenersBeforeImport: number[];
  const running = new Set<EmbeddedDatabase>();
  /** Servers of killed child processes, stopped in `after` if a failing test left them. */
  const orphans = new Set<number>();
  const start = async (dataDir: string, lines?: string[]) => {
    const database = await startEmbeddedPostgres(dataDir, quietLogger(lines));
    running.add(database);
    return database;
  };
  const stop = async (database: EmbeddedDatabase) => {
    await database.stop();
    running.delete(database);
  };
  before(async () => {
    // Imported here, after counting the process's signal handlers, to see what loading it adds.
    listenersBeforeImport = SIGNALS.map((s) => process.listenerCount(s));
    ({ startEmbeddedPostgres } = await import('../src/db/embedded.ts'));
    root = mkdtempSync('/tmp/tis-embedded-');
    chmodSync(root, 0o755);
  });
  after(async () => {
    for (const database of running) await database.stop();
    for (const pid of orphans) if (isAlive(pid)) process.kill(pid, 'SIGINT');
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps its data across a restart and installs no signal handler of its own', async () => {
    const dataDir = path.join(root, 'restart');
    const first = await start(dataDir);
    // The service's shutdown owns the signals: the package's handlers would exit the process
    // (code 128 + signal) while HTTP and the worker still drain.
    assert.deepEqual(
      SIGNALS.map((s) => process.listenerCount(s)),
      listenersBeforeImport,
    );
    assert.ok(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION')));
    assert.ok(!existsSync(path.join(dataDir, 'postgres.partial')), 'the initdb side directory is renamed');
    await query(first.url, 'CREATE TABLE kept (value text); INSERT INTO kept VALUES ($$across restarts$$)');
    await stop(first);

    const second = await start(dataDir);
    const rows = await query<{ value: string }>(second.url, 'SELECT value FROM kept');
    assert.deepEqual(rows, [{ value: 'across restarts' }]);
    const [{ address } = { address: '' }] = await query<{ address: string }>(
      second.url,
      'SELECT host(inet_server_addr()) AS address',
    );
    assert.equal(address, '127.0.0.1', 'it listens on loopback only');
    await stop(second);
  });

  it('stops the server orphaned by a killed process and starts again on the same DATA_DIR', async () => {
    const dataDir = path.join(root, 'orphan');
    // A process that starts the embedded server and is then killed with SIGKILL: it cannot stop
    // its server, which is re-parented to init and keeps the data directory locked.
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { startEmbeddedPostgres } = await import(${JSON.stringify(path.join(ROOT, 'src/db/embedded.ts'))});
         const db = await startEmbeddedPostgres(${JSON.stringify(dataDir)}, { info() {}, debug() {} });
         process.stdout.write('started ' + db.url + '\\n');
         setInterval(() => {}, 1000);`,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the child did not start:\n${output}`)),
        CHILD_LIMIT_MS,
      );
      child.stdout.on('data', () => {
        if (output.includes('started ')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the child exited (${code}):\n${output}`));
      });
    });
    const orphanPid = Number(
      readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    orphans.add(orphanPid);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    assert.ok(isAlive(orphanPid), 'the killed process left its server running');

    const lines: string[] = [];
    const database = await start(dataDir, lines);
    assert.ok(!isAlive(orphanPid), 'the orphaned server was stopped');
    assert.ok(
      lines.some((l) => l.includes(`orphaned embedded PostgreSQL (pid ${orphanPid})`)),
      lines.join('\n'),
    );
    assert.deepEqual(await query(database.url, 'SELECT 1 AS one'), [{ one: 1 }]);
    await stop(database);
  });

  it('says why the server did not start instead of failing with no reason', async () => {
    const dataDir = path.join(root, 'broken');
    await stop(await start(dataDir));
    appendFileSync(path.join(dataDir, 'postgres', 'postgresql.auto.conf'), "\nshared_buffers = 'plenty'\n");
    await assert.rejects(start(dataDir), (error: Error) => {
      assert.match(error.message, /did not start/);
      assert.match(error.message, /shared_buffers/);
      return true;
    });
  });

  it('explains that a parent of DATA_DIR must be traversable when it runs as root', {
    skip: process.getuid?.() !== 0 && 'only root hands the server to the postgres user',
  }, async () => {
    const closed = path.join(root, 'closed');
    mkdirSync(closed, { mode: 0o700 });
    chmodSync(closed, 0o700);
    await assert.rejects(
      start(path.join(closed, 'data')),
      /cannot reach .*closed\/data because .*closed is not traversable/,
    );
  });
});
