import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { parseAddress } from './address.ts';

/**
 * The only reader of process.env (docs/configuration.md). Every variable is parsed and checked in
 * one pass, and every problem is reported together, so an operator fixes a bad deployment in one
 * go.
 */

export const ROLES = ['api', 'worker', 'all'] as const;
export type ProcessRole = (typeof ROLES)[number];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  readonly http: {
    readonly port: number;
    readonly host: string;
    readonly publicBaseUrl: string;
    /** Read the client address from X-Forwarded-For (behind a reverse proxy); off by default. */
    readonly trustProxy: boolean;
  };
  readonly role: ProcessRole;
  /** Unset means the embedded PostgreSQL under `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly embedded: boolean;
  readonly dataDir: string;
  readonly secretKey: string;
  readonly devChain: boolean;
  /** The dev chain's JSON-RPC port, fixed so wallets and scripts can be pointed at it; 0 = any free port. */
  readonly devChainPort: number;
  readonly bootstrap: {
    readonly email: string | undefined;
    readonly password: string | undefined;
    readonly orgName: string;
  };
  readonly smtpUrl: string | undefined;
  /** Where organizations' mail providers are (docs/configuration.md): unset means the real services. */
  readonly mail: {
    /** MAILGUN_API_BASE: Mailgun's API base as mailgun.js takes it; unset: by the integration's region. */
    readonly mailgunApiBase: string | undefined;
    /** SES_ENDPOINT: the SES v2 endpoint; unset: by the integration's region. */
    readonly sesEndpoint: string | undefined;
    /** SMTP_TLS_CA_FILE's certificates (PEM), trusted for SMTP besides the system's. */
    readonly smtpTlsCa: string | undefined;
  };
  /** Where the card provider is (docs/configuration.md). */
  readonly card: {
    /** STRIPE_API_BASE: Stripe's API base (scheme, host, port); unset: Stripe's own API. */
    readonly stripeApiBase: string | undefined;
  };
  /**
   * The platform's name: the suffix of campaigns' default `email_from`, shown on pages
   * (docs/configuration.md).
   */
  readonly platformName: string;
  readonly webhooks: {
    /** Webhook URLs may resolve to private, loopback or link-local addresses. */
    readonly allowPrivateUrls: boolean;
  };
  /** The crypto provider (Coinbase Business payment links). */
  readonly cryptoProvider: {
    /** COINBASE_BUSINESS_API_BASE: where its API is (tests: a local stand-in); no trailing slash. */
    readonly apiBase: string;
  };
  /** PLATFORM_FEE_ADDRESS: receives mint vouchers' platform fees; unset: the platform wallet's address. */
  readonly platformFeeAddress: `0x${string}` | undefined;
  readonly accessTokenTtlSeconds: number;
  /** How long an API instance may answer from its cache of authenticated credentials; 0: no cache. */
  readonly authCacheTtlSeconds: number;
  readonly logLevel: LogLevel;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

// The same email format the API validates, so a bootstrap admin can always log in.
const isEmail = addFormats.default(new Ajv()).compile({ type: 'string', format: 'email' });
const SECRET_KEY_FILE = 'secret-key';
const MIN_SECRET_KEY_LENGTH = 32;
/** The port wallets (MetaMask's "Localhost 8545") and tools (Hardhat, Foundry) expect of a dev node. */
export const DEFAULT_DEV_CHAIN_PORT = 8545;
/** Coinbase Business's API, where payment links are created. */
export const DEFAULT_COINBASE_BUSINESS_API_BASE = 'https://business.coinbase.com';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Parses the environment. `loadSecretKey` is only called in the embedded mode, where the key is
 * generated once into DATA_DIR and kept across restarts.
 */
export function parseConfig(
  env: Env,
  loadSecretKey: (dataDir: string) => string = readOrCreateSecretKey,
  purpose: 'service' | 'migrate' = 'service',
): Config {
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = text(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  };
  const boolean = (name: string, fallback: boolean): boolean => {
    const raw = text(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(raw)) return true;
    if (['false', '0', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${env[name]}")`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = text(name);
    if (raw === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      problems.push(`${name} is not a valid URL`);
      return undefined;
    }
    if (!protocols.includes(parsed.protocol)) {
      problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
      return undefined;
    }
    return raw;
  };

  const port = integer('PORT', 8080, 0, 65535);
  const host = text('HOST') ?? '0.0.0.0';
  const trustProxy = boolean('TRUST_PROXY', false);
  const role = oneOf('ROLE', ROLES, 'all');
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const embedded = text('DATABASE_URL') === undefined;
  const dataDir = path.resolve(text('DATA_DIR') ?? './data');
  const publicBaseUrl = (url('PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(
    /\/+$/,
    '',
  );
  const devChain = boolean('DEV_CHAIN', embedded);
  const devChainPort = integer('DEV_CHAIN_PORT', DEFAULT_DEV_CHAIN_PORT, 0, 65535);
  const smtpUrl = url('SMTP_URL', ['smtp:', 'smtps:']);
  const mailgunApiBase = url('MAILGUN_API_BASE', ['http:', 'https:'])?.replace(/\/+$/, '');
  const sesEndpoint = url('SES_ENDPOINT', ['http:', 'https:']);
  const stripeApiBase = url('STRIPE_API_BASE', ['http:', 'https:'])?.replace(/\/+$/, '');
  const smtpTlsCaFile = text('SMTP_TLS_CA_FILE');
  let smtpTlsCa: string | undefined;
  if (smtpTlsCaFile !== undefined) {
    try {
      smtpTlsCa = readFileSync(smtpTlsCaFile, 'utf8');
      if (!smtpTlsCa.includes('-----BEGIN CERTIFICATE-----'))
        problems.push(`SMTP_TLS_CA_FILE (${smtpTlsCaFile}) holds no PEM certificate`);
    } catch (error) {
      problems.push(`SMTP_TLS_CA_FILE (${smtpTlsCaFile}) cannot be read: ${(error as Error).message}`);
    }
  }
  const platformName = text('PLATFORM_NAME') ?? 'Tokens';
  // It ends up in mail headers (a campaign's sender name) and on pages.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (platformName.length > 100 || /[\u0000-\u001f\u007f<>"]/.test(platformName)) {
    problems.push('PLATFORM_NAME must be at most 100 characters, without control characters, <, > or "');
  }
  // The embedded mode runs on a developer's machine, where receivers listen on localhost.
  const allowPrivateUrls = boolean('WEBHOOK_ALLOW_PRIVATE_URLS', embedded);
  const coinbaseBusinessApiBase = (
    url('COINBASE_BUSINESS_API_BASE', ['http:', 'https:']) ?? DEFAULT_COINBASE_BUSINESS_API_BASE
  ).replace(/\/+$/, '');
  const platformFeeRaw = text('PLATFORM_FEE_ADDRESS');
  const platformFeeAddress = platformFeeRaw === undefined ? undefined : parseAddress(platformFeeRaw);
  if (platformFeeRaw !== undefined && (platformFeeAddress === undefined || /^0x0{40}$/.test(platformFeeRaw)))
    problems.push(
      'PLATFORM_FEE_ADDRESS must be a non-zero address (a mixed-case one with a valid EIP-55 checksum)',
    );
  const accessTokenTtlSeconds = integer('ACCESS_TOKEN_TTL', 3600, 60, 30 * 24 * 3600);
  const authCacheTtlSeconds = integer('AUTH_CACHE_TTL', 30, 0, 60);
  const logLevel = oneOf('LOG_LEVEL', LOG_LEVELS, 'info');

  const bootstrapEmail = text('BOOTSTRAP_ADMIN_EMAIL');
  const bootstrapPassword = text('BOOTSTRAP_ADMIN_PASSWORD');
  if (bootstrapEmail !== undefined && !isEmail(bootstrapEmail)) {
    problems.push('BOOTSTRAP_ADMIN_EMAIL is not an email address');
  }
  if ((bootstrapEmail === undefined) !== (bootstrapPassword === undefined)) {
    problems.push('BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD must be set together');
  }
  if (bootstrapPassword !== undefined && bootstrapPassword.length < 8) {
    problems.push('BOOTSTRAP_ADMIN_PASSWORD must have at least 8 characters');
  }
  const orgName = text('BOOTSTRAP_ORG_NAME') ?? 'Platform';

  let secretKey = text('SECRET_KEY');
  if (secretKey !== undefined && secretKey.length < MIN_SECRET_KEY_LENGTH) {
    problems.push(`SECRET_KEY must have at least ${MIN_SECRET_KEY_LENGTH} characters`);
  }
  // Migrating touches no secret, so a migration job needs no SECRET_KEY.
  if (secretKey === undefined && !embedded && purpose === 'service') {
    problems.push('SECRET_KEY is required when DATABASE_URL is set');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  secretKey ??= purpose === 'migrate' ? '' : loadSecretKey(dataDir);

  return deepFreeze({
    http: { port, host, publicBaseUrl, trustProxy },
    role,
    databaseUrl,
    embedded,
    dataDir,
    secretKey,
    devChain,
    devChainPort,
    bootstrap: { email: bootstrapEmail?.toLowerCase(), password: bootstrapPassword, orgName },
    smtpUrl,
    mail: { mailgunApiBase, sesEndpoint, smtpTlsCa },
    card: { stripeApiBase },
    platformName,
    webhooks: { allowPrivateUrls },
    cryptoProvider: { apiBase: coinbaseBusinessApiBase },
    platformFeeAddress,
    accessTokenTtlSeconds,
    authCacheTtlSeconds,
    logLevel,
  });
}

/** Embedded mode: the key is generated on first start and kept beside the database. */
export function readOrCreateSecretKey(dataDir: string): string {
  const file = path.join(dataDir, SECRET_KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    const key = randomBytes(32).toString('base64url');
    // Written whole beside the target, then linked into place: the file appears complete or not
    // at all, and when two processes start together (ROLE=api and ROLE=worker) the second one
    // finds the first one's key (EEXIST) instead of failing or replacing it.
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(draft, `${key}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(draft, file);
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(draft, { force: true });
    }
  }
  const key = readFileSync(file, 'utf8').trim();
  if (key.length < MIN_SECRET_KEY_LENGTH) {
    throw new ConfigError([`${file} holds no usable secret key: restore it, or set SECRET_KEY`]);
  }
  return key;
}

function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (child !== null && typeof child === 'object') deepFreeze(child);
  }
  return Object.freeze(value);
}
