import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/types.ts';
import { createLogger, redactUrl } from '../src/lib/logger.ts';
import { checkAddress } from '../src/web/client/address.ts';
import { decryptKeystore, encryptKeystore, type KeystoreV3 } from '../src/web/client/keystore.ts';
import { createServiceContext } from '../src/wiring/ports.ts';
import { setupTest, type TestEnv } from './harness.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const TOKEN = 'Zx9_secret-claim-token-0123456789abcdef';

describe('the claim page', () => {
  let env: TestEnv;
  let app: App;
  const logLines: string[] = [];
  before(async () => {
    env = await setupTest();
    // The same app with a logger at info level writing into memory: what the logs would hold.
    const logger = createLogger('info', { write: (line: string) => void logLines.push(line) });
    app = await buildApp(createServiceContext(env.ctx.config, env.database.db, logger));
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await env?.close();
  });

  it('serves one static page for every claim, allowing only its own origin, with no referrer and no cache', async () => {
    const response = await app.inject({ method: 'GET', url: `/claim?token=${TOKEN}`, headers: BROWSER });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.equal(response.headers['referrer-policy'], 'no-referrer');
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    const csp = String(response.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'(;|$)/);
    assert.match(csp, /img-src 'self' data:(;|$)/);
    assert.doesNotMatch(csp, /https:|unsafe/);
    assert.ok(!response.body.includes(TOKEN), 'the page does not echo the token');
    const urls = [...response.body.matchAll(/\b(?:src|href|action)="([^"]*)"/g)].map((m) => m[1]!);
    for (const url of urls) assert.match(url, /^\/(?!\/)/, `${url} is not a path on this service`);
    assert.match(response.body, /<script type="module" src="\/assets\/claim\.[0-9a-f]{16}\.js"><\/script>/);
    // Every step is in the markup, hidden until the script shows it.
    for (const step of ['loading', 'invalid', 'expired', 'revoked', 'claimed', 'request-pin', 'enter-pin']) {
      assert.match(response.body, new RegExp(`data-step="${step}"[^>]*hidden`));
    }
    assert.match(response.body, /<input id="pin"[^>]*inputmode="numeric" autocomplete="one-time-code"/);
    assert.match(response.body, /<label for="pin">/);
    assert.match(response.body, /role="status" aria-live="polite"/);
  });

  it('bundles the script once and serves it from /assets/ with its content type, cached for good', async () => {
    const page = await app.inject({ method: 'GET', url: '/claim', headers: BROWSER });
    const src = /src="(\/assets\/claim\.[0-9a-f]{16}\.js)"/.exec(page.body)?.[1];
    assert.ok(src, page.body);
    const script = await app.inject({ method: 'GET', url: src });
    assert.equal(script.statusCode, 200);
    assert.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(script.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.ok(script.body.length > 10_000, 'viem’s wallet code is bundled in');
    // Nothing is imported from elsewhere at run time.
    assert.doesNotMatch(script.body, /\bimport\s*\(?\s*["']https?:/);
    const again = await app.inject({ method: 'GET', url: '/claim', headers: BROWSER });
    assert.ok(again.body.includes(src), 'the same bundle is linked again');
    const plain = await app.inject({ method: 'GET', url: '/assets/claim.js' });
    assert.equal(plain.headers['cache-control'], 'no-cache');
    assert.equal(plain.body, script.body);
    const wrong = await app.inject({
      method: 'GET',
      url: '/assets/claim.0000000000000000.js',
      headers: BROWSER,
    });
    assert.equal(wrong.statusCode, 404);
  });

  it('never writes a claim token into the request logs', async () => {
    await app.inject({ method: 'GET', url: `/claim?token=${TOKEN}`, headers: BROWSER });
    await app.inject({ method: 'GET', url: `/claim?lang=en&token=${TOKEN}#x` });
    await app.inject({ method: 'GET', url: `/v1/public/email-claims/${TOKEN}` });
    await app.inject({ method: 'POST', url: `/v1/public/email-claims/${TOKEN}/verify` });
    const logged = logLines.join('');
    assert.ok(logged.includes('"url":"/claim?token=[redacted]"'), logged.slice(0, 2000));
    assert.ok(logged.includes('/v1/public/email-claims/[redacted]'));
    assert.ok(!logged.includes(TOKEN), 'a token reached the logs');
    assert.equal(redactUrl('/claim?a=1&TOKEN=abc&b=2'), '/claim?a=1&TOKEN=[redacted]&b=2');
    assert.equal(
      redactUrl('/v1/public/email-claims/abc/redeem'),
      '/v1/public/email-claims/[redacted]/redeem',
    );
  });
});

describe('the claim page: addresses and keystores', () => {
  it('takes an address in one case or with a valid EIP-55 checksum, answering it checksummed', () => {
    const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    assert.deepEqual(checkAddress(` ${checksummed.toLowerCase()} `), { address: checksummed });
    assert.deepEqual(checkAddress(checksummed), { address: checksummed });
    assert.match(
      String((checkAddress(checksummed.replace('aA', 'Aa')) as { error: string }).error),
      /checksum/,
    );
    assert.match(String((checkAddress('0x1234') as { error: string }).error), /40 hexadecimal/);
    assert.ok('error' in checkAddress('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'));
  });

  it('decrypts the Web3 Secret Storage test vector (scrypt, AES-128-CTR, keccak MAC)', async () => {
    const vector: KeystoreV3 = {
      version: 3,
      id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
      address: '008aeeda4d805471df9b2a5b0f38a0c3bcba786b',
      crypto: {
        ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
        cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
        cipher: 'aes-128-ctr',
        kdf: 'scrypt',
        kdfparams: {
          dklen: 32,
          n: 262144,
          r: 1,
          p: 8,
          salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19',
        },
        mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
      },
    };
    const { privateKey, address } = await decryptKeystore(vector, 'testpassword');
    assert.equal(privateKey, '0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d');
    assert.equal(address, '0x008AeEda4D805471dF9b2A5B0f38A0C3bCBA786b');
    await assert.rejects(decryptKeystore(vector, 'wrong'), /MAC/);
  });

  it('encrypts a key into a keystore v3 that decrypts back with the password only', async () => {
    const key = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
    const keystore = await encryptKeystore(key, 'correct horse', { n: 1024 });
    assert.equal(keystore.version, 3);
    assert.match(keystore.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(keystore.address, '2c7536e3605d9c16a7a3d7b1898e529396a65c23');
    assert.equal(keystore.crypto.kdfparams.n, 1024);
    assert.match(keystore.crypto.ciphertext, /^[0-9a-f]{64}$/);
    assert.equal((await decryptKeystore(keystore, 'correct horse')).privateKey, key);
    await assert.rejects(decryptKeystore(keystore, 'correct horsf'), /MAC/);
  });
});
