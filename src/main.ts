import { startBanner } from './banner.ts';
import { ConfigError, parseConfig } from './lib/config.ts';
import { createLogger } from './lib/logger.ts';
import { isAlive } from './lib/process.ts';
import { startService } from './service.ts';

const PARENT_POLL_MS = 250;

/** Process entry: config → dependencies → api / worker / both. */
async function main(): Promise<void> {
  let config: ReturnType<typeof parseConfig>;
  try {
    config = parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);

  // Handlers go in before anything starts: a signal during start-up (initdb, migrations) still
  // stops what was started, including the embedded PostgreSQL, instead of orphaning it.
  let stopping = false;
  const starting = startService(config, logger);
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    const service = await starting.catch(() => undefined);
    await service?.stop();
    process.exit(service ? 0 : 1);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // `npm start` runs this process under a shell (`sh -c`), and npm passes a SIGTERM to that shell
  // only, which dies without passing it on. When whoever started this process is gone, stop as on
  // SIGTERM instead of running on as an orphan with PostgreSQL and anvil.
  const parent = process.ppid;
  if (parent > 1) {
    setInterval(() => {
      if (!isAlive(parent)) void shutdown('parent exited');
    }, PARENT_POLL_MS).unref();
  }

  // Printed even when a signal came during start-up: a generated password is shown only once.
  const service = await starting;
  process.stdout.write(startBanner(config, service));
}

main().catch((error) => {
  process.stderr.write(
    `failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
