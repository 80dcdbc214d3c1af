import { createDatabase } from './db/database.ts';
import { startEmbeddedPostgres } from './db/embedded.ts';
import { migrate } from './db/migrator.ts';
import { ConfigError, parseConfig } from './lib/config.ts';
import { createLogger } from './lib/logger.ts';

/** Operator commands: `migrate` applies pending migrations and exits. */
async function main(command: string | undefined): Promise<void> {
  if (command !== 'migrate') {
    process.stderr.write('usage: npm run migrate   (tsx src/cli.ts migrate)\n');
    process.exit(2);
  }
  const config = parseConfig(process.env, undefined, 'migrate');
  const logger = createLogger(config.logLevel);
  const embedded =
    config.databaseUrl === undefined ? await startEmbeddedPostgres(config.dataDir, logger) : undefined;
  const database = createDatabase(config.databaseUrl ?? embedded!.url, { max: 2 });
  try {
    const { applied } = await migrate(database.db, database.pool);
    process.stdout.write(applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'nothing to apply\n');
  } finally {
    await database.destroy();
    await embedded?.stop();
  }
}

main(process.argv[2]).catch((error) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
