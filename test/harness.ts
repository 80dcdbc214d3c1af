import { randomBytes } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { ROLE_IDS, type RoleName } from '../src/access/permissions.ts';
import { buildApp } from '../src/app.ts';
import { bootstrapAdmin } from '../src/bootstrap.ts';
import type { AppContext, Ports } from '../src/context.ts';
import { createDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { migrate } from '../src/db/migrator.ts';
import type { App } from '../src/http/types.ts';
import { type Config, parseConfig } from '../src/lib/config.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import { createLogger } from '../src/lib/logger.ts';
import { hashPassword } from '../src/modules/platform/auth/auth.service.ts';
import { signToken } from '../src/modules/platform/auth/tokens.ts';
import { createOrganization } from '../src/modules/platform/organizations/organizations.service.ts';
import { createUser as insertUser } from '../src/modules/platform/users/users.service.ts';
import { createServiceContext } from '../src/wiring/ports.ts';
import { findTestServer, withDatabase } from './postgres.ts';

export const TEST_PASSWORD = 'correct horse battery';
export const PLATFORM_ADMIN_EMAIL = 'platform@example.test';
/** The test configuration's SECRET_KEY (a service process started on a test database needs it). */
export const TEST_SECRET_KEY = 'test-secret-key-test-secret-key-0123456789';

/**
 * A fresh database for one test file: cloned from the run's migrated template (see test/run.ts),
 * or created and migrated here when a file is run on its own.
 */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  let adminUrl = process.env.TEST_POSTGRES_ADMIN_URL;
  let stopServer = async () => {};
  if (!adminUrl) {
    const server = await findTestServer(() => {});
    adminUrl = server.adminUrl;
    stopServer = server.stop;
  }
  const name = `tis_test_${randomBytes(6).toString('hex')}`;
  const template = process.env.TEST_TEMPLATE_DB;
  await adminQuery(
    adminUrl,
    template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`,
  );
  const url = withDatabase(adminUrl, name);
  if (!template) {
    const database = createDatabase(url, { max: 2 });
    await migrate(database.db, database.pool);
    await database.destroy();
  }
  return {
    url,
    drop: async () => {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await stopServer();
    },
  };
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    // CREATE DATABASE ... TEMPLATE fails while another session is connected to the template.
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(text);
        return;
      } catch (error) {
        if (attempt < 20 && (error as { code?: string }).code === '55006') {
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        throw error;
      }
    }
  } finally {
    await client.end();
  }
}

export function testConfig(databaseUrl: string, overrides: Record<string, string> = {}): Config {
  return parseConfig({
    DATABASE_URL: databaseUrl,
    SECRET_KEY: TEST_SECRET_KEY,
    PUBLIC_BASE_URL: 'http://tokens.test',
    LOG_LEVEL: 'silent',
    BOOTSTRAP_ADMIN_EMAIL: PLATFORM_ADMIN_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: TEST_PASSWORD,
    ...overrides,
  });
}

export interface Actor {
  user: { id: string; email: string; organization_id: string; role_id: string };
  token: string;
  password: string;
}

export interface CallOptions {
  token?: string;
  apiKey?: string;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | string[]>;
  ip?: string;
}

export interface Tenant {
  organizationId: string;
  admin: Actor;
  member: Actor;
  /** The ORG_ADMIN of another organization: what it is pointed at must answer 404. */
  stranger: Actor;
}

export interface TestEnv {
  readonly ctx: AppContext;
  readonly app: App;
  readonly database: DatabaseHandle;
  readonly databaseUrl: string;
  readonly platformAdmin: Actor;
  readonly platformOrganizationId: string;
  call(method: InjectOptions['method'], url: string, options?: CallOptions): Promise<LightMyRequestResponse>;
  createOrganization(
    name?: string,
    fields?: { mfa_required?: boolean },
  ): Promise<{ id: string; name: string }>;
  createUser(organizationId: string, role: RoleName, email?: string): Promise<Actor>;
  /** An organization with an ORG_ADMIN and an ORG_MEMBER, and another organization's admin. */
  createTenant(): Promise<Tenant>;
  /**
   * Registers a network row directly, without asking a node for its chain id (the API does);
   * the default url answers nothing. An existing id is left as it is.
   */
  insertNetwork(id: number, config?: object, name?: string): Promise<void>;
  login(email: string, password: string): Promise<string>;
  close(): Promise<void>;
}

export interface TestOptions {
  /** Ports that replace the wiring's (an in-memory payment provider: test/support/payment-sessions.ts). */
  ports?: Partial<Ports>;
}

export async function setupTest(
  configOverrides: Record<string, string> = {},
  options: TestOptions = {},
): Promise<TestEnv> {
  const { url, drop } = await createTestDatabase();
  const config = testConfig(url, configOverrides);
  const database = createDatabase(url, { max: 10 });
  const ctx: AppContext = createServiceContext(config, database.db, createLogger('silent'), options.ports);
  // As the API role does at start: the credential cache serves while it listens.
  await ctx.credentials.listen(url, ctx.logger);
  const bootstrap = await bootstrapAdmin(database.db, config);
  if (!bootstrap) throw new Error('bootstrap admin was not created');
  const app = await buildApp(ctx);
  await app.ready();

  const call: TestEnv['call'] = async (method, path, options = {}) => {
    // Tests change the database directly too: every invalidation committed so far is applied
    // before the request, as it is on an instance within milliseconds.
    await ctx.credentials.sync();
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    return app.inject({
      method,
      url: path,
      headers,
      ...(options.query && { query: options.query }),
      ...(options.body !== undefined && { payload: options.body as InjectOptions['payload'] }),
      ...(options.ip && { remoteAddress: options.ip }),
    });
  };

  const login = async (email: string, password: string): Promise<string> => {
    const response = await call('POST', '/v1/auth/login', {
      body: { email, password },
      ip: `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    });
    if (response.statusCode !== 200) throw new Error(`login of ${email} failed: ${response.body}`);
    return response.json().access_token as string;
  };

  const passwordHash = await hashPassword(TEST_PASSWORD);
  let counter = 0;
  const createUser: TestEnv['createUser'] = async (organizationId, role, email) => {
    const row = await insertUser(database.db, {
      id: uuidv7(),
      organization_id: organizationId,
      email: email ?? `user${++counter}-${randomBytes(3).toString('hex')}@example.test`,
      role_id: ROLE_IDS[role],
      password_hash: passwordHash,
      verified_at: new Date(),
    });
    // Signed directly: a log in costs an argon2 check, and the log in itself has its own tests.
    const token = await signToken(
      ctx.keyring,
      'access',
      { userId: row.id, sessionVersion: row.session_version },
      config.accessTokenTtlSeconds,
    );
    return { user: row, token, password: TEST_PASSWORD };
  };

  const newOrganization: TestEnv['createOrganization'] = async (name, fields = {}) => {
    const row = await createOrganization(database.db, ctx, {
      name: name ?? `Org ${++counter} ${randomBytes(3).toString('hex')}`,
      ...fields,
    });
    return { id: row.id, name: row.name };
  };

  const platformAdminToken = await login(PLATFORM_ADMIN_EMAIL, TEST_PASSWORD);
  const platformUser = await database.db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', PLATFORM_ADMIN_EMAIL)
    .executeTakeFirstOrThrow();

  return {
    ctx,
    app,
    database,
    databaseUrl: url,
    platformAdmin: { user: platformUser, token: platformAdminToken, password: TEST_PASSWORD },
    platformOrganizationId: bootstrap.organizationId,
    call,
    login,
    createUser,
    async insertNetwork(id, config = { url: 'http://127.0.0.1:9' }, name = `net ${id}`) {
      await database.db
        .insertInto('networks')
        .values({ id, name, enabled: true, testnet: true, config: JSON.stringify(config) })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    },
    async createTenant() {
      const organizationId = (await newOrganization()).id;
      return {
        organizationId,
        admin: await createUser(organizationId, 'ORG_ADMIN'),
        member: await createUser(organizationId, 'ORG_MEMBER'),
        stranger: await createUser((await newOrganization()).id, 'ORG_ADMIN'),
      };
    },
    createOrganization: newOrganization,
    async close() {
      await app.close();
      await ctx.mail.close();
      await ctx.credentials.close();
      await database.destroy();
      await drop();
    },
  };
}
