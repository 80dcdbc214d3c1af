import { type ChildProcess, spawn } from 'node:child_process';
import { pbkdf2Sync } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import path from 'node:path';
import { type Address, type Hex, toHex } from 'viem';
import { HDKey, hdKeyToAccount } from 'viem/accounts';
import { freePort } from '../lib/net.ts';

/**
 * The embedded development chain: anvil, from the npm package of this platform's binary
 * (`@foundry-rs/anvil-linux-amd64` and siblings), spawned directly (not through the
 * `@foundry-rs/anvil` node wrapper, which would sit between us and anvil and could leave it
 * running), listening on loopback only and answering real JSON-RPC over HTTP.
 *
 * - Interval mining (`--block-time`): anvil's automine can leave transactions unmined under
 *   bursts, interval mining never does.
 * - `statePath` keeps the chain across restarts (`--state`: loaded at start, written every
 *   `stateIntervalSeconds` and on stop), so contract addresses stored by the service stay valid.
 * - The child is stopped with the service, and on process exit or an unhandled SIGINT/SIGTERM/
 *   SIGHUP. A SIGKILL of this process cannot be caught: anvil then outlives it (on its own port).
 */
export interface DevChainOptions {
  /** Default: a free loopback port. */
  port?: number;
  /** When `port` is in use, take a free port instead of failing (`DevChain.portTaken` says so). */
  fallbackToFreePort?: boolean;
  /** Default 31337. */
  chainId?: number;
  /** Interval mining period; default 1 s (tests use 0.2 s). */
  blockTimeSeconds?: number;
  /** Chain state file, loaded at start and written periodically and on stop. */
  statePath?: string;
  /** Default 10 s; only with `statePath`. */
  stateIntervalSeconds?: number;
  /** BIP-39 mnemonic of the funded dev accounts; default anvil's well-known test mnemonic. */
  mnemonic?: string;
  /** Number of funded dev accounts; default 10. */
  accountCount?: number;
  /** Balance of each dev account in ether; default 10000. */
  balanceEther?: number;
  /** Default 30 s. */
  startTimeoutMs?: number;
  logger?: DevChainLogger;
}

export interface DevChainLogger {
  info(msg: string): void;
  debug(msg: string): void;
}

export interface DevAccount {
  readonly address: Address;
  readonly privateKey: Hex;
}

export interface DevChain {
  readonly rpcUrl: string;
  readonly chainId: number;
  /** The `port` asked for, when it was in use and a free port was taken instead. */
  readonly portTaken: number | undefined;
  readonly pid: number;
  /** The funded dev accounts, derived from the mnemonic (m/44'/60'/0'/0/i, as anvil does). */
  readonly accounts: readonly DevAccount[];
  /** Stops anvil (it writes its state file first); resolves once it has exited. Idempotent. */
  stop(): Promise<void>;
}

/** anvil's default mnemonic: its keys are public knowledge, fit for a local dev chain only. */
export const DEV_CHAIN_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEV_CHAIN_ID = 31337;

const START_ATTEMPTS = 3;
const STOP_TIMEOUT_MS = 10_000;
const READY_POLL_MS = 25;

const BINARY_PACKAGES: Readonly<Record<string, string>> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
  'win32-x64': '@foundry-rs/anvil-win32-amd64',
};

/** Path of the anvil binary shipped by the platform package npm installed for this machine. */
export function anvilBinaryPath(): string {
  const platform = `${process.platform}-${process.arch}`;
  const pkg = BINARY_PACKAGES[platform];
  if (!pkg) throw new Error(`anvil has no npm binary for ${platform}`);
  const binary = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  try {
    return createRequire(import.meta.url).resolve(`${pkg}/bin/${binary}`);
  } catch {
    throw new Error(`${pkg} is not installed: the dev chain needs it (npm install --save-optional ${pkg})`);
  }
}

export async function startDevChain(options: DevChainOptions = {}): Promise<DevChain> {
  const chainId = options.chainId ?? DEV_CHAIN_ID;
  const mnemonic = options.mnemonic ?? DEV_CHAIN_MNEMONIC;
  const accountCount = options.accountCount ?? 10;
  const logger = options.logger ?? { info: () => {}, debug: () => {} };
  const accounts = deriveAccounts(mnemonic, accountCount);
  if (options.statePath) mkdirSync(path.dirname(options.statePath), { recursive: true });

  // A port picked by freePort() can be taken before anvil binds it: then pick another.
  let port = options.port ?? (await freePort());
  let portTaken: number | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      const { child, pid } = await launch(port, chainId, mnemonic, accountCount, options, logger);
      const rpcUrl = `http://127.0.0.1:${port}`;
      logger.info(`dev chain ${chainId} at ${rpcUrl} (anvil pid ${pid})`);
      return {
        rpcUrl,
        chainId,
        portTaken,
        pid,
        accounts,
        stop: () => stopChild(child),
      };
    } catch (error) {
      const taken = error instanceof AnvilStartError && /address already in use/i.test(error.message);
      const askedFor = options.port !== undefined && port === options.port;
      if (!taken || (askedFor && !options.fallbackToFreePort) || attempt >= START_ATTEMPTS) throw error;
      if (askedFor) portTaken = port;
      logger.info(`dev chain: port ${port} is taken, trying a free port`);
      port = await freePort();
    }
  }
}

class AnvilStartError extends Error {}

async function launch(
  port: number,
  chainId: number,
  mnemonic: string,
  accountCount: number,
  options: DevChainOptions,
  logger: DevChainLogger,
): Promise<{ child: ChildProcess; pid: number }> {
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    String(chainId),
    '--block-time',
    String(options.blockTimeSeconds ?? 1),
    '--mnemonic',
    mnemonic,
    '--accounts',
    String(accountCount),
    '--balance',
    String(options.balanceEther ?? 10_000),
    // anvil logs every RPC call otherwise; errors still reach stderr.
    '--quiet',
  ];
  // anvil cannot bind a port in use, but another node already there would answer our readiness
  // probe in its place: refuse the port up front.
  if (await acceptsConnections(port)) throw new AnvilStartError(`127.0.0.1:${port}: address already in use`);
  if (options.statePath) {
    args.push('--state', options.statePath, '--state-interval', String(options.stateIntervalSeconds ?? 10));
  }
  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'pipe', 'pipe'], detached: false });
  const recentOutput: string[] = [];
  const onOutput = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      const text = line.trim();
      if (!text) continue;
      logger.debug(`anvil: ${text}`);
      recentOutput.push(text);
      if (recentOutput.length > 20) recentOutput.shift();
    }
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  track(child);

  let exitReason: string | undefined;
  child.on('error', (error) => {
    exitReason ??= `failed to start (${error.message})`;
  });
  child.once('exit', (code, signal) => {
    exitReason ??= `exited (${signal ?? `code ${code}`})`;
  });
  const startFailure = () =>
    exitReason && `anvil ${exitReason} before answering: ${recentOutput.join(' | ') || 'no output'}`;
  try {
    await waitForRpc(`http://127.0.0.1:${port}`, chainId, options.startTimeoutMs ?? 30_000, startFailure);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  if (child.pid === undefined) throw new AnvilStartError('anvil has no pid');
  return { child, pid: child.pid };
}

/** Polls `eth_chainId` until anvil answers with the expected id, it exits, or time runs out. */
async function waitForRpc(
  rpcUrl: string,
  chainId: number,
  timeoutMs: number,
  startFailure: () => string | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const failure = startFailure();
    if (failure) throw new AnvilStartError(failure);
    const answer = await rpcChainId(rpcUrl);
    // Whoever answered, our anvil must still be running (and not have lost the port to another node).
    if (answer === chainId && !startFailure()) return;
    if (answer !== undefined)
      throw new AnvilStartError(`${rpcUrl} answered chain id ${answer}, expected ${chainId}`);
    if (Date.now() > deadline)
      throw new AnvilStartError(`anvil did not answer at ${rpcUrl} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
}

/** The chain id the node at `rpcUrl` reports, or undefined while it does not answer. */
async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { result?: unknown };
    return typeof body.result === 'string' ? Number(body.result) : undefined;
  } catch {
    return undefined;
  }
}

function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function deriveAccounts(mnemonic: string, count: number): DevAccount[] {
  // BIP-39 seed with node's native PBKDF2 (viem's mnemonicToAccount would redo it in JS per account).
  const seed = pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
  const root = HDKey.fromMasterSeed(seed);
  return Array.from({ length: count }, (_, addressIndex) => {
    const account = hdKeyToAccount(root, { addressIndex });
    const privateKey = account.getHdKey().privateKey;
    if (!privateKey) throw new Error('dev account without a private key');
    return Object.freeze({ address: account.address, privateKey: toHex(privateKey) });
  });
}

// ------------------------------------------------------------------ child lifetime

const running = new Set<ChildProcess>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const signalHandlers: Record<(typeof SIGNALS)[number], () => void> = {
  SIGINT: () => {},
  SIGTERM: () => {},
  SIGHUP: () => {},
};
let hooksInstalled = false;

function isRunning(child: ChildProcess): boolean {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}

function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (hooksInstalled) return;
  hooksInstalled = true;
  // SIGTERM lets anvil write its state file; it finishes that on its own after we are gone.
  process.once('exit', () => {
    for (const c of running) c.kill('SIGTERM');
  });
  for (const signal of SIGNALS) {
    const onSignal = () => {
      // Another listener (the service's graceful shutdown) stops the chain itself and exits;
      // alone, we stop anvil and let the signal take its default course.
      if (process.listenerCount(signal) > 1) return;
      for (const c of running) c.kill('SIGTERM');
      for (const s of SIGNALS) process.removeListener(s, signalHandlers[s]);
      process.kill(process.pid, signal);
    };
    signalHandlers[signal] = onSignal;
    process.on(signal, onSignal);
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
