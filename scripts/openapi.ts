import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { createDatabase } from '../src/db/database.ts';
import { parseConfig } from '../src/lib/config.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createServiceContext } from '../src/wiring/ports.ts';

/**
 * `npm run openapi` writes docs/openapi.json from the routes' schemas; with `--check` it fails
 * when the committed file differs (run by `npm run check`). No database is contacted.
 */
const target = path.resolve(import.meta.dirname, '../docs/openapi.json');
const check = process.argv.includes('--check');

const config = parseConfig({
  DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
  SECRET_KEY: 'openapi-generation-only-openapi-generation-only',
  PUBLIC_BASE_URL: 'http://localhost:8080',
});
const database = createDatabase(config.databaseUrl!, { max: 1 });
const app = await buildApp(createServiceContext(config, database.db, createLogger('silent')));
await app.ready();
const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
await app.close();
await database.destroy();

if (check) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {}
  if (current !== document) {
    process.stderr.write('docs/openapi.json is out of date: run `npm run openapi` and commit it\n');
    process.exit(1);
  }
  process.stdout.write('docs/openapi.json is up to date\n');
} else {
  writeFileSync(target, document);
  process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
}
