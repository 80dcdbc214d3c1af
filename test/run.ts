import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrator.ts';
import { findTestServer, withDatabase } from './postgres.ts';

/**
 * `npm test`: finds a PostgreSQL server, builds one migrated template database for this run,
 * then runs every *.test.ts file with node:test; each file clones its own database from the
 * template, so files never share state and can run in parallel.
 */
const root = path.resolve(import.meta.dirname, '..');
const filters = process.argv.slice(2);

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(full).isDirectory()) return testFiles(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * The browser tests (files using test/support/browser.ts) need Chromium: installed by
 * scripts/ensure-chromium.sh when missing, so `npm ci && npm test` works on a fresh Debian machine.
 * When it cannot be had, CI stops here; elsewhere those tests say why they skip.
 */
function ensureChromium(files: string[], log: (msg: string) => void): boolean {
  if (!files.some((f) => readFileSync(f, 'utf8').includes('support/browser.ts'))) return true;
  const result = spawnSync('bash', [path.join(root, 'scripts/ensure-chromium.sh')], { stdio: 'inherit' });
  if (result.status === 0) return true;
  if (process.env.CI === 'true') {
    log('Chromium is needed by the browser tests and could not be installed (see above)');
    return false;
  }
  log('Chromium could not be installed: the browser tests will be skipped');
  return true;
}

async function main(): Promise<number> {
  const log = (msg: string) => process.stderr.write(`[test] ${msg}\n`);
  const files = [...testFiles(path.join(root, 'src')), ...testFiles(path.join(root, 'test'))]
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
    .sort();
  if (!ensureChromium(files, log)) return 1;
  const server = await findTestServer(log);
  const template = `tis_template_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${template}`);
    const database = createDatabase(withDatabase(server.adminUrl, template), { max: 2 });
    await migrate(database.db, database.pool);
    await database.destroy();

    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
      {
        stdio: 'inherit',
        env: { ...process.env, TEST_POSTGRES_ADMIN_URL: server.adminUrl, TEST_TEMPLATE_DB: template },
      },
    );
    return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${template}`).catch(() => {});
    await admin.end();
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
