import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createTestClient, type Hex, http, parseEther } from 'viem';
import { buildApp } from './app.ts';
import { type BootstrapResult, bootstrapAdmin } from './bootstrap.ts';
import { type DevAccount, type DevChain, startDevChain } from './chain/dev-chain.ts';
import type { AppContext, Deps } from './context.ts';
import { createDatabase, type DatabaseHandle } from './db/database.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from './db/embedded.ts';
import { isUniqueViolation } from './db/errors.ts';
import { migrate } from './db/migrator.ts';
import type { Config } from './lib/config.ts';
import { chainClientOf, registerDevChainNetwork } from './modules/platform/networks/networks.service.ts';
import { allowNetworkWithAutoFund } from './modules/platform/organizations/organizations.service.ts';
import { ensurePlatformWallet } from './modules/platform/wallets/wallets.service.ts';
import { createServiceContext } from './wiring/ports.ts';
import { buildWorker, type Worker } from './worker.ts';

export interface RunningService {
  readonly url: string | undefined;
  readonly bootstrap: BootstrapResult | undefined;
  /** The embedded dev chain, when DEV_CHAIN is on. */
  readonly devChain: RunningDevChain | undefined;
  stop(): Promise<void>;
}

export interface RunningDevChain {
  readonly rpcUrl: string;
  /** DEV_CHAIN_PORT, when it was in use and the chain took a free port instead. */
  readonly portTaken: number | undefined;
  /** The funded dev accounts a user may sign with: all but the platform wallet. */
  readonly userAccounts: readonly DevAccount[];
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

    const ctx: AppContext = createServiceContext(config, database.db, logger);
    stops.push(() => ctx.mail.close());
    if (config.role !== 'worker') {
      // The API's credential cache serves only while it hears every invalidation.
      await ctx.credentials.listen(databaseUrl, logger);
      stops.push(() => ctx.credentials.close());
    }
    let devChain: RunningDevChain | undefined;
    if (config.devChain) {
      // Started before the API and the worker, so it stops after them.
      const chain = await startDevChain({
        // 0 means any free port, as for PORT.
        ...(config.devChainPort !== 0 && { port: config.devChainPort, fallbackToFreePort: true }),
        statePath: path.join(config.dataDir, DEV_CHAIN_STATE_FILE),
        blockTimeSeconds: 1,
        logger: { info: (msg) => logger.info(msg), debug: (msg) => logger.debug(msg) },
      });
      stops.push(() => chain.stop());
      const platformAddress = await setUpDevChain(database.db, ctx, chain, bootstrap);
      devChain = {
        rpcUrl: chain.rpcUrl,
        portTaken: chain.portTaken,
        // The platform wallet signs the relayer's transactions: its key is never handed out.
        userAccounts: chain.accounts.filter((a) => a.address.toLowerCase() !== platformAddress.toLowerCase()),
      };
    }
    let url: string | undefined;
    if (config.role !== 'api') {
      const worker: Worker = await buildWorker(ctx, database);
      stops.push(() => worker.stop());
    }
    if (config.role !== 'worker') {
      const app: FastifyInstance = await buildApp(ctx);
      stops.push(() => app.close());
      url = await app.listen({ port: config.http.port, host: config.http.host });
    }
    return { url, bootstrap, devChain, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export const DEV_CHAIN_STATE_FILE = 'dev-chain-state.json';
/** What the platform wallet is given on the dev chain when it has nothing there. */
const DEV_PLATFORM_WALLET_FUNDS = parseEther('10000');

/**
 * DESIGN.md "Embedded default": the dev chain is network 31337 (its url follows anvil's port),
 * the platform wallet is its first funded account, and the bootstrap organization can use it.
 * Returns the platform wallet's address.
 */
async function setUpDevChain(
  db: DatabaseHandle['db'],
  deps: Deps,
  chain: DevChain,
  bootstrap: BootstrapResult | undefined,
): Promise<string> {
  const funded = chain.accounts[0];
  if (!funded) throw new Error('the dev chain has no funded account');
  const { network, created } = await db
    .transaction()
    .execute((tx) => registerDevChainNetwork(tx, chain.chainId, chain.rpcUrl));
  // Two instances starting together may both create it: the loser reads the winner's.
  const wallet = await ensurePlatformWallet(db, deps.keyring, funded.privateKey).catch((error: unknown) => {
    if (isUniqueViolation(error, 'wallets_platform_key')) return ensurePlatformWallet(db, deps.keyring);
    throw error;
  });
  // A platform wallet made before the dev chain (another key) is funded on it instead.
  if ((await chainClientOf(deps, network).balance(wallet.address as Hex)) === 0n) {
    await createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) }).setBalance({
      address: wallet.address as Hex,
      value: DEV_PLATFORM_WALLET_FUNDS,
    });
  }
  // Only when the organization or the network is new: an admin who took the network away from
  // the organization later is not overruled at the next start. The organization's wallet is
  // topped up from the platform wallet (auto_fund), so a first deployment just works.
  const organizationId = bootstrap?.organizationId ?? (created ? await firstUserOrganization(db) : undefined);
  if (organizationId !== undefined) {
    await db.transaction().execute((tx) => allowNetworkWithAutoFund(tx, organizationId, network.id));
  }
  return wallet.address;
}

/** The organization of the first user: the bootstrap admin's (src/bootstrap.ts). */
async function firstUserOrganization(db: DatabaseHandle['db']): Promise<string | undefined> {
  const user = await db
    .selectFrom('users')
    .select('organization_id')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return user?.organization_id;
}
