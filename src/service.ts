import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { type BootstrapResult, bootstrapAdmin } from './bootstrap.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { createDatabase, type DatabaseHandle } from './db/database.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from './db/embedded.ts';
import { migrate } from './db/migrator.ts';
import { createKeyring } from './lib/secrets.ts';
import { createSmtpTransport } from './providers/mail/smtp.ts';
import { buildWorker, type Worker } from './worker.ts';

export interface RunningService {
  readonly url: string | undefined;
  readonly bootstrap: BootstrapResult | undefined;
  stop(): Promise<void>;
}

/** Starts what the role asks for: database (embedded when no DATABASE_URL), migrations, API, worker. */
export async function startService(config: Config, logger: Logger): Promise<RunningService> {
  const stops: (() => Promise<void>)[] = [];
  // Last started, first stopped; each part once, however many times stop is called.
  const stop = async () => {
    for (let fn = stops.pop(); fn !== undefined; fn = stops.pop()) {
      await fn().catch((error) => logger.error({ err: error }, 'stop failed'));
    }
  };
  try {
    let databaseUrl = config.databaseUrl;
    if (databaseUrl === undefined) {
      const embedded: EmbeddedDatabase = await startEmbeddedPostgres(config.dataDir, logger);
      stops.push(() => embedded.stop());
      databaseUrl = embedded.url;
    }
    const database: DatabaseHandle = createDatabase(databaseUrl, { max: 20 });
    stops.push(() => database.destroy());
    const { applied } = await migrate(database.db, database.pool);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    const bootstrap = await bootstrapAdmin(database.db, config);

    const ctx: AppContext = { config, db: database.db, keyring: createKeyring(config.secretKey), logger };
    let url: string | undefined;
    if (config.role !== 'api') {
      const transport = config.smtpUrl ? createSmtpTransport(config.smtpUrl) : undefined;
      const worker: Worker = await buildWorker(ctx, database, {
        delivery: { transport, from: defaultFromAddress(config) },
      });
      stops.push(async () => {
        await worker.stop();
        await transport?.close();
      });
    }
    if (config.role !== 'worker') {
      const app: FastifyInstance = await buildApp(ctx);
      stops.push(() => app.close());
      url = await app.listen({ port: config.http.port, host: config.http.host });
    }
    return { url, bootstrap, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The platform's sender: no-reply at the host of PUBLIC_BASE_URL. */
export function defaultFromAddress(config: Config): string {
  return `Token Issuance Service <no-reply@${new URL(config.http.publicBaseUrl).hostname}>`;
}
