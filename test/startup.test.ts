import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../src/lib/net.ts';
import { isAlive } from '../src/lib/process.ts';

/**
 * The README's first command: `npm start` with no configuration. The process is started for
 * real, as `npm start` runs it (the build, dist/main.js, under plain node: migrations and
 * contract artifacts found from dist/), with embedded PostgreSQL, migrations, bootstrap, HTTP and
 * worker; stopped, and started again.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const START_LIMIT_MS = 120_000;
const STOP_LIMIT_MS = 30_000;

interface Started {
  child: ChildProcess;
  stdout: () => string;
  /** stdout and stderr together (pino logs go to stdout). */
  output: () => string;
  url: string;
}

/** Every process started here; `after` ends any still running. */
const children = new Set<ChildProcess>();

function serviceEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      /^(DATABASE_URL|SECRET_KEY|SMTP_URL|PUBLIC_BASE_URL|BOOTSTRAP_|ROLE$|HOST$|PORT$|NODE_TEST_CONTEXT$)/.test(
        name,
      )
    )
      delete env[name];
  }
  return {
    ...env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DEV_CHAIN: 'false',
  };
}

/** The production build, made once (when stale) before the first start. */
let built = false;

async function startService(dataDir: string): Promise<Started> {
  if (!built) {
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--if-stale'], { cwd: ROOT });
    built = true;
  }
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: serviceEnv(dataDir, port),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    output += chunk.toString('utf8');
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new Error(`no "listening on" within ${START_LIMIT_MS} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`),
      );
    }, START_LIMIT_MS);
    const check = () => {
      // The banner is written in one piece once everything has started.
      const match = /listening on (\S+)/.exec(stdout);
      if (match?.[1] && stdout.includes('outgoing mail kept')) {
        clearTimeout(timer);
        resolve(`http://${match[1]}`);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(
          `the service exited (${code ?? signal}) before listening\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    });
  });
  assert.equal(url, `http://127.0.0.1:${port}`);
  assert.ok(
    stdout.includes(`open http://localhost:${port}  (API docs: http://localhost:${port}/docs)`),
    stdout,
  );
  return { child, url, stdout: () => stdout, output: () => output };
}

/** Stops the service with SIGTERM: it exits 0 and logs no error on its way out. */
async function stopCleanly(service: Started): Promise<void> {
  const before = service.output().length;
  assert.equal(await stopService(service.child), 0);
  const errors = service
    .output()
    .slice(before)
    .split('\n')
    .filter((line) => /"level":(50|60)/.test(line));
  assert.deepEqual(errors, [], 'errors logged while stopping');
}

/** SIGTERM, then the exit code (bounded: a process that hangs fails the test). */
function stopService(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not exit within ${STOP_LIMIT_MS} ms of SIGTERM`));
    }, STOP_LIMIT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

async function json(
  url: string,
  init: { method?: string; token?: string; apiKey?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.apiKey) headers['x-api-key'] = init.apiKey;
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
}

describe('npm start with no configuration (embedded default)', () => {
  let dataDir: string;
  before(() => {
    // As root, PostgreSQL runs as the `postgres` user, which must be able to reach DATA_DIR.
    dataDir = mkdtempSync('/tmp/tis-startup-');
    chmodSync(dataDir, 0o755);
  });
  after(async () => {
    for (const child of children) await stopService(child).catch(() => child.kill('SIGKILL'));
    rmSync(dataDir, { recursive: true, force: true });
  });

  let adminEmail: string;
  let adminPassword: string;

  it('starts, prints a bootstrap admin who logs in, creates an API key, and stops cleanly on SIGTERM', async () => {
    const service = await startService(dataDir);
    const out = service.stdout();
    adminEmail = /bootstrap platform admin: (\S+)/.exec(out)?.[1] ?? '';
    adminPassword = /bootstrap password \(shown once\): (\S+)/.exec(out)?.[1] ?? '';
    assert.ok(adminEmail && adminPassword, out);
    assert.ok(out.includes(`embedded PostgreSQL data in ${dataDir}/postgres`), out);

    assert.equal((await json(`${service.url}/healthz`)).status, 200);
    const ready = await json(`${service.url}/readyz`);
    assert.equal(ready.status, 200, ready.text);

    const login = await json(`${service.url}/v1/auth/login`, {
      method: 'POST',
      body: { email: adminEmail, password: adminPassword },
    });
    assert.equal(login.status, 200, login.text);
    const created = await json(`${service.url}/v1/api-keys`, {
      method: 'POST',
      token: login.body.access_token,
      body: { name: 'first script' },
    });
    assert.equal(created.status, 201, created.text);
    const me = await json(`${service.url}/v1/me`, { apiKey: created.body.key });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.user.email, adminEmail);
    assert.ok(me.body.permissions.includes('platform:admin'));

    // The local mailbox is on (no SMTP_URL) and readable by the admin.
    const mailbox = await json(`${service.url}/v1/mailbox`, { apiKey: created.body.key });
    assert.equal(mailbox.status, 200, mailbox.text);

    await stopCleanly(service);
  });

  it('keeps its data across a restart on the same DATA_DIR and bootstraps no second admin', async () => {
    assert.ok(adminPassword, 'the first start ran');
    const service = await startService(dataDir);
    const out = service.stdout();
    assert.ok(!out.includes('bootstrap platform admin'), out);
    assert.ok(!out.includes('bootstrap password'), out);

    const login = await json(`${service.url}/v1/auth/login`, {
      method: 'POST',
      body: { email: adminEmail, password: adminPassword },
    });
    assert.equal(login.status, 200, login.text);
    const keys = await json(`${service.url}/v1/api-keys`, { token: login.body.access_token });
    assert.equal(keys.status, 200, keys.text);
    assert.deepEqual(
      keys.body.results.map((k: { name: string }) => k.name),
      ['first script'],
    );
    assert.equal((await json(`${service.url}/readyz`)).status, 200);

    await stopCleanly(service);
  });
});

/** anvil's first dev account, the platform wallet on a new dev chain: its key is never printed. */
const PLATFORM_DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** anvil's second dev account, offered to the user. */
const SECOND_DEV_ACCOUNT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const SECOND_DEV_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** Every process below `pid` (children, their children, …). */
function descendants(pid: number): number[] {
  let listed: string;
  try {
    listed = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when nothing matches.
  }
  const children = listed
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((child) => child > 0);
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function commandName(pid: number): string {
  try {
    return execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  } catch {
    return ''; // It has just exited.
  }
}

describe('npm start, stopped by a SIGTERM to the npm process', () => {
  let dataDir: string;
  let holder: Server;
  let tree: number[] = [];
  before(() => {
    dataDir = mkdtempSync('/tmp/tis-npm-start-');
    chmodSync(dataDir, 0o755);
    holder = createServer();
  });
  after(async () => {
    for (const child of children) await stopService(child).catch(() => child.kill('SIGKILL'));
    for (const pid of tree.filter(isAlive)) process.kill(pid, 'SIGKILL');
    holder.close();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  });

  it('shows the dev chain on a free port when DEV_CHAIN_PORT is taken, offers the test accounts but not the platform key, and leaves no process behind', async () => {
    // DEV_CHAIN_PORT is a port this test holds, so 8545 being free or not on this machine does not matter.
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const heldPort = (holder.address() as AddressInfo).port;
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...serviceEnv(dataDir, 0), DEV_CHAIN: 'true', DEV_CHAIN_PORT: String(heldPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(npm);
    npm.on('exit', () => children.delete(npm));
    let stdout = '';
    let stderr = '';
    npm.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    npm.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    for (const deadline = Date.now() + START_LIMIT_MS; !stdout.includes('outgoing mail kept'); ) {
      assert.equal(npm.exitCode, null, `npm start exited\nstdout:\n${stdout}\nstderr:\n${stderr}`);
      assert.ok(
        Date.now() < deadline,
        `no banner within ${START_LIMIT_MS} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const chainUrl = /dev chain \(network 31337\) at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
    assert.ok(chainUrl, stdout);
    assert.notEqual(chainUrl, `http://127.0.0.1:${heldPort}`);
    assert.ok(stdout.includes(`port ${heldPort} is in use`), stdout);
    const chainId = await fetch(chainUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    }).then((response) => response.json() as Promise<{ result: string }>);
    assert.equal(Number(chainId.result), 31337);
    assert.ok(stdout.includes('PUBLIC keys'), stdout);
    assert.ok(stdout.includes(`${SECOND_DEV_ACCOUNT}  private key ${SECOND_DEV_KEY}`), stdout);
    assert.ok(!stdout.includes(PLATFORM_DEV_KEY), 'the platform wallet key is not printed');

    assert.ok(npm.pid);
    tree = descendants(npm.pid);
    const names = new Set(tree.map(commandName));
    for (const name of ['node', 'postgres', 'anvil'])
      assert.ok(names.has(name), `${name} runs: ${[...names]}`);

    await stopService(npm);
    for (const deadline = Date.now() + STOP_LIMIT_MS; tree.some(isAlive) && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const survivors = tree.filter(isAlive).map((pid) => `${pid} ${commandName(pid)}`);
    assert.deepEqual(survivors, [], 'processes left running after npm stopped');
  });
});
