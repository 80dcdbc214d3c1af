import { ConfigError, parseConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startService } from './service.ts';

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

  // Printed even when a signal came during start-up: a generated password is shown only once.
  const service = await starting;
  const lines = [`token issuance service (${config.role}) started`];
  if (service.url) lines.push(`  listening on ${service.url}  (API docs: ${config.http.publicBaseUrl}/docs)`);
  if (config.embedded) lines.push(`  embedded PostgreSQL data in ${config.dataDir}/postgres`);
  if (service.devChainUrl) lines.push(`  dev chain (network 31337) at ${service.devChainUrl}`);
  if (service.bootstrap) {
    lines.push(`  bootstrap platform admin: ${service.bootstrap.email}`);
    if (service.bootstrap.generatedPassword) {
      lines.push(`  bootstrap password (shown once): ${service.bootstrap.generatedPassword}`);
    }
  }
  if (!config.smtpUrl)
    lines.push(`  outgoing mail kept in the local mailbox: GET ${config.http.publicBaseUrl}/v1/mailbox`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(
    `failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
