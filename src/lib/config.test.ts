import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, parseConfig, readOrCreateSecretKey } from './config.ts';

const SECRET = 'a-secret-key-of-at-least-32-characters!!';
const DATABASE_URL = 'postgres://app@db.internal:5432/tokens';
const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const noKeyFile = (): string => assert.fail('the embedded secret key must not be read here');

function configError(
  env: Record<string, string>,
  loadSecretKey: (dataDir: string) => string = () => SECRET,
): ConfigError {
  try {
    parseConfig(env, loadSecretKey);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  return assert.fail('parseConfig accepted a bad configuration');
}

describe('parseConfig', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tis-config-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('applies the defaults of docs/configuration.md in the embedded mode', () => {
    const config = parseConfig({}, () => SECRET);
    assert.deepEqual(config, {
      http: { port: 8080, host: '0.0.0.0', publicBaseUrl: 'http://localhost:8080', trustProxy: false },
      role: 'all',
      databaseUrl: undefined,
      embedded: true,
      dataDir: path.resolve('./data'),
      secretKey: SECRET,
      devChain: true,
      devChainPort: 8545,
      bootstrap: { email: undefined, password: undefined, orgName: 'Platform' },
      smtpUrl: undefined,
      mail: { mailgunApiBase: undefined, sesEndpoint: undefined, smtpTlsCa: undefined },
      card: { stripeApiBase: undefined },
      platformName: 'Tokens',
      webhooks: { allowPrivateUrls: true },
      cryptoProvider: { apiBase: 'https://business.coinbase.com' },
      platformFeeAddress: undefined,
      accessTokenTtlSeconds: 3600,
      authCacheTtlSeconds: 30,
      logLevel: 'info',
    });
  });

  it('turns the dev chain off and needs no key file when DATABASE_URL is set', () => {
    const config = parseConfig({ DATABASE_URL, SECRET_KEY: SECRET }, noKeyFile);
    assert.equal(config.embedded, false);
    assert.equal(config.databaseUrl, DATABASE_URL);
    assert.equal(config.devChain, false);
    assert.equal(config.secretKey, SECRET);
  });

  it('allows private webhook URLs only in the embedded mode unless WEBHOOK_ALLOW_PRIVATE_URLS says so', () => {
    assert.equal(
      parseConfig({ DATABASE_URL, SECRET_KEY: SECRET }, noKeyFile).webhooks.allowPrivateUrls,
      false,
    );
    const allowed = parseConfig(
      { DATABASE_URL, SECRET_KEY: SECRET, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
      noKeyFile,
    );
    assert.equal(allowed.webhooks.allowPrivateUrls, true);
    const refused = parseConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }, () => SECRET);
    assert.equal(refused.webhooks.allowPrivateUrls, false);
    assert.match(configError({ WEBHOOK_ALLOW_PRIVATE_URLS: 'maybe' }).message, /WEBHOOK_ALLOW_PRIVATE_URLS/);
  });

  it('derives PUBLIC_BASE_URL from PORT, and drops a trailing slash from a given one', () => {
    assert.equal(parseConfig({ PORT: '9000' }, () => SECRET).http.publicBaseUrl, 'http://localhost:9000');
    const config = parseConfig({ PUBLIC_BASE_URL: 'https://tokens.example.com/' }, () => SECRET);
    assert.equal(config.http.publicBaseUrl, 'https://tokens.example.com');
  });

  it('reads every variable it documents', () => {
    const caFile = path.join(tempDir(), 'ca.pem');
    writeFileSync(caFile, CA_PEM);
    const config = parseConfig(
      {
        PORT: '3000',
        HOST: '127.0.0.1',
        ROLE: 'worker',
        TRUST_PROXY: 'on',
        DATABASE_URL,
        DATA_DIR: '/var/lib/tis',
        SECRET_KEY: SECRET,
        PUBLIC_BASE_URL: 'https://tokens.example.com',
        DEV_CHAIN: 'on',
        DEV_CHAIN_PORT: '9545',
        BOOTSTRAP_ADMIN_EMAIL: 'Admin@Example.com',
        BOOTSTRAP_ADMIN_PASSWORD: 'long enough',
        BOOTSTRAP_ORG_NAME: 'Acme',
        SMTP_URL: 'smtps://user:pass@mail.example.com:465',
        MAILGUN_API_BASE: 'http://127.0.0.1:4010/',
        COINBASE_BUSINESS_API_BASE: 'http://127.0.0.1:4012/',
        SES_ENDPOINT: 'http://127.0.0.1:4011',
        STRIPE_API_BASE: 'http://127.0.0.1:4012/',
        SMTP_TLS_CA_FILE: caFile,
        PLATFORM_NAME: 'Acme Tokens',
        PLATFORM_FEE_ADDRESS: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
        ACCESS_TOKEN_TTL: '600',
        LOG_LEVEL: 'debug',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'yes',
      },
      noKeyFile,
    );
    assert.deepEqual(config, {
      http: { port: 3000, host: '127.0.0.1', publicBaseUrl: 'https://tokens.example.com', trustProxy: true },
      role: 'worker',
      databaseUrl: DATABASE_URL,
      embedded: false,
      dataDir: '/var/lib/tis',
      secretKey: SECRET,
      devChain: true,
      devChainPort: 9545,
      bootstrap: { email: 'admin@example.com', password: 'long enough', orgName: 'Acme' },
      smtpUrl: 'smtps://user:pass@mail.example.com:465',
      mail: {
        mailgunApiBase: 'http://127.0.0.1:4010',
        sesEndpoint: 'http://127.0.0.1:4011',
        smtpTlsCa: CA_PEM,
      },
      card: { stripeApiBase: 'http://127.0.0.1:4012' },
      platformName: 'Acme Tokens',
      webhooks: { allowPrivateUrls: true },
      cryptoProvider: { apiBase: 'http://127.0.0.1:4012' },
      platformFeeAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      accessTokenTtlSeconds: 600,
      authCacheTtlSeconds: 30,
      logLevel: 'debug',
    });
  });

  it('refuses a PLATFORM_FEE_ADDRESS that is not a usable address', () => {
    for (const value of ['0x123', '0x70997970C51812dc3A010C7d01b50e0d17dc79c8', `0x${'0'.repeat(40)}`]) {
      const error = configError({ PLATFORM_FEE_ADDRESS: value });
      assert.ok(
        error.problems.some((p) => p.startsWith('PLATFORM_FEE_ADDRESS')),
        `${value}: ${error.problems}`,
      );
    }
  });

  it('refuses a PLATFORM_NAME that could break a mail header', () => {
    for (const name of ['Tokens\r\nBcc: x@example.com', 'A <b>', 'x'.repeat(101)]) {
      const error = configError({ PLATFORM_NAME: name });
      assert.ok(
        error.problems.some((p) => p.startsWith('PLATFORM_NAME')),
        error.message,
      );
    }
  });

  it('treats blank variables as unset', () => {
    const config = parseConfig({ PORT: '  ', ROLE: '', LOG_LEVEL: ' ' }, () => SECRET);
    assert.equal(config.http.port, 8080);
    assert.equal(config.role, 'all');
    assert.equal(config.logLevel, 'info');
  });

  it('names every bad variable at once, in one ConfigError', () => {
    const error = configError({ PORT: 'abc', ROLE: 'x', LOG_LEVEL: 'y' });
    assert.equal(error.problems.length, 3, error.message);
    for (const name of ['PORT', 'ROLE', 'LOG_LEVEL']) {
      assert.ok(
        error.problems.some((p) => p.startsWith(name)),
        `${name} is not named: ${error.message}`,
      );
      assert.match(error.message, new RegExp(name));
    }
  });

  it('lists the problems of all the other variables too', () => {
    const error = configError({
      PORT: '70000',
      DATABASE_URL: 'mysql://db/tokens',
      PUBLIC_BASE_URL: 'ftp://tokens.example.com',
      DEV_CHAIN: 'maybe',
      DEV_CHAIN_PORT: '8545x',
      SMTP_URL: 'not a url',
      MAILGUN_API_BASE: 'ftp://mailgun',
      SES_ENDPOINT: 'nope',
      STRIPE_API_BASE: 'stripe',
      SMTP_TLS_CA_FILE: '/nonexistent/ca.pem',
      ACCESS_TOKEN_TTL: '5',
      BOOTSTRAP_ADMIN_EMAIL: 'not-an-email',
      SECRET_KEY: 'short',
    });
    const named = [
      'PORT',
      'DATABASE_URL',
      'PUBLIC_BASE_URL',
      'DEV_CHAIN',
      'DEV_CHAIN_PORT',
      'SMTP_URL',
      'MAILGUN_API_BASE',
      'SES_ENDPOINT',
      'STRIPE_API_BASE',
      'SMTP_TLS_CA_FILE',
      'ACCESS_TOKEN_TTL',
      'BOOTSTRAP_ADMIN_EMAIL',
      'SECRET_KEY',
    ];
    for (const name of named) {
      assert.ok(
        error.problems.some((p) => p.startsWith(name)),
        `${name} is not named: ${error.message}`,
      );
    }
  });

  it('requires SECRET_KEY when DATABASE_URL is set', () => {
    const error = configError({ DATABASE_URL }, noKeyFile);
    assert.deepEqual(error.problems, ['SECRET_KEY is required when DATABASE_URL is set']);
  });

  it('needs no SECRET_KEY to migrate, since migrating touches no secret', () => {
    const config = parseConfig({ DATABASE_URL }, noKeyFile, 'migrate');
    assert.equal(config.databaseUrl, DATABASE_URL);
  });

  it('refuses a bootstrap email that the log in schema would refuse (no dot in the domain)', () => {
    const error = configError({
      BOOTSTRAP_ADMIN_EMAIL: 'root@localhost',
      BOOTSTRAP_ADMIN_PASSWORD: 'long enough',
    });
    assert.deepEqual(error.problems, ['BOOTSTRAP_ADMIN_EMAIL is not an email address']);
  });

  it('trusts X-Forwarded-For only when TRUST_PROXY is on, and names a bad value', () => {
    assert.equal(parseConfig({}, () => SECRET).http.trustProxy, false);
    assert.equal(parseConfig({ TRUST_PROXY: 'true' }, () => SECRET).http.trustProxy, true);
    assert.ok(configError({ TRUST_PROXY: 'maybe' }).problems.some((p) => p.startsWith('TRUST_PROXY')));
  });

  it('requires the bootstrap email and password together', () => {
    const error = configError({ BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com' });
    assert.ok(
      error.problems.some((p) => p.includes('must be set together')),
      error.message,
    );
    const short = configError({
      BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
      BOOTSTRAP_ADMIN_PASSWORD: 'short',
    });
    assert.ok(
      short.problems.some((p) => p.startsWith('BOOTSTRAP_ADMIN_PASSWORD')),
      short.message,
    );
  });

  it('generates the secret key into DATA_DIR in the embedded mode, and keeps it across restarts', () => {
    const dataDir = path.join(tempDir(), 'nested', 'data');
    const first = parseConfig({ DATA_DIR: dataDir });
    assert.ok(first.secretKey.length >= 32);
    const file = path.join(dataDir, 'secret-key');
    assert.equal(readFileSync(file, 'utf8').trim(), first.secretKey);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'the key file is readable by its owner only');
    assert.equal(parseConfig({ DATA_DIR: dataDir }).secretKey, first.secretKey);
    assert.deepEqual(readdirSync(dataDir), ['secret-key'], 'no draft file is left behind');
  });

  it('prefers SECRET_KEY over the key file in the embedded mode', () => {
    const dataDir = tempDir();
    assert.equal(parseConfig({ DATA_DIR: dataDir, SECRET_KEY: SECRET }).secretKey, SECRET);
    assert.deepEqual(readdirSync(dataDir), []);
  });

  it('refuses an empty key file instead of signing with an empty key', () => {
    const dataDir = tempDir();
    writeFileSync(path.join(dataDir, 'secret-key'), '\n');
    const error = configError({ DATA_DIR: dataDir }, readOrCreateSecretKey);
    assert.match(error.message, /secret-key/);
  });

  it('freezes the whole configuration', () => {
    const config = parseConfig({}, () => SECRET);
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.http));
    assert.ok(Object.isFrozen(config.bootstrap));
    assert.throws(() => {
      (config as { role: string }).role = 'api';
    }, TypeError);
    assert.throws(() => {
      (config.http as { port: number }).port = 1;
    }, TypeError);
    assert.equal(config.role, 'all');
  });
});
