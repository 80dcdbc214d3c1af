import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createPublicClient, createWalletClient, defineChain, type Hash, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { freePort } from '../lib/net.ts';
import { DEV_CHAIN_ID, startDevChain } from './dev-chain.ts';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded) until `pid` has exited; the OS reaps it asynchronously. */
async function waitForExit(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

function clients(rpcUrl: string, chainId: number) {
  const chain = defineChain({
    id: chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return { chain, publicClient: createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 }) };
}

/** Runs a Node process that starts a dev chain, prints anvil's pid, then does `then`. */
function childWithDevChain(then: 'exit' | 'wait'): Promise<{ pid: number; child: ReturnType<typeof spawn> }> {
  const moduleUrl = new URL('./dev-chain.ts', import.meta.url).href;
  const code = [
    `const { startDevChain } = await import(${JSON.stringify(moduleUrl)});`,
    'const chain = await startDevChain({ blockTimeSeconds: 0.2 });',
    "process.stdout.write(String(chain.pid) + '\\n');",
    then === 'exit' ? 'process.exit(0);' : 'setInterval(() => {}, 1000);',
  ].join('\n');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('\n')) resolve({ pid: Number(output.trim()), child });
    });
    child.once('exit', (code) => {
      if (!output.includes('\n')) reject(new Error(`child exited with ${code} before starting the chain`));
    });
  });
}

describe('dev chain (anvil)', () => {
  it('answers JSON-RPC with the configured chain id and funds the accounts derived from the mnemonic', async () => {
    const dev = await startDevChain({ chainId: 4242, blockTimeSeconds: 0.2 });
    try {
      const { publicClient } = clients(dev.rpcUrl, dev.chainId);
      assert.equal(await publicClient.getChainId(), 4242);
      assert.match(dev.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(dev.accounts.length, 10);
      const nodeAccounts = await publicClient.request<{
        Method: 'eth_accounts';
        Parameters: [];
        ReturnType: string[];
      }>({ method: 'eth_accounts', params: [] });
      assert.deepEqual(
        dev.accounts.map((a) => a.address.toLowerCase()),
        nodeAccounts.map((a) => a.toLowerCase()),
      );
      for (const account of dev.accounts) {
        assert.equal(privateKeyToAccount(account.privateKey).address, account.address);
      }
      assert.equal(await publicClient.getBalance({ address: dev.accounts[0]!.address }), parseEther('10000'));
    } finally {
      await dev.stop();
    }
  });

  it("defaults to chain id 31337 and anvil's well-known first account", async () => {
    const dev = await startDevChain({ blockTimeSeconds: 0.2 });
    try {
      assert.equal(dev.chainId, DEV_CHAIN_ID);
      assert.equal(dev.accounts[0]?.address, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    } finally {
      await dev.stop();
    }
  });

  it('mines transactions by interval mining', async () => {
    const dev = await startDevChain({ blockTimeSeconds: 0.2 });
    try {
      const { chain, publicClient } = clients(dev.rpcUrl, dev.chainId);
      const wallet = createWalletClient({
        chain,
        transport: http(dev.rpcUrl),
        account: privateKeyToAccount(dev.accounts[0]!.privateKey),
      });
      const hashes: Hash[] = [];
      for (let i = 0; i < 5; i++) {
        hashes.push(await wallet.sendTransaction({ to: dev.accounts[1]!.address, value: 1n, nonce: i }));
      }
      for (const hash of hashes) {
        assert.equal((await publicClient.waitForTransactionReceipt({ hash })).status, 'success');
      }
    } finally {
      await dev.stop();
    }
  });

  it('keeps the chain across restarts when given a state file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dev-chain-'));
    const statePath = path.join(dir, 'chain', 'state.json');
    try {
      const first = await startDevChain({ blockTimeSeconds: 0.2, statePath });
      const recipient = privateKeyToAccount(`0x${'11'.repeat(32)}` as const).address;
      try {
        const { chain, publicClient } = clients(first.rpcUrl, first.chainId);
        const wallet = createWalletClient({
          chain,
          transport: http(first.rpcUrl),
          account: privateKeyToAccount(first.accounts[0]!.privateKey),
        });
        const hash = await wallet.sendTransaction({ to: recipient, value: 12345n });
        await publicClient.waitForTransactionReceipt({ hash });
      } finally {
        await first.stop();
      }
      const second = await startDevChain({ blockTimeSeconds: 0.2, statePath });
      try {
        const { publicClient } = clients(second.rpcUrl, second.chainId);
        assert.equal(await publicClient.getBalance({ address: recipient }), 12345n);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stop() ends the anvil process and can be called twice', async () => {
    const dev = await startDevChain({ blockTimeSeconds: 0.2 });
    assert.equal(isAlive(dev.pid), true);
    await dev.stop();
    await dev.stop();
    assert.equal(await waitForExit(dev.pid), true);
  });

  it('refuses a requested port that is already in use', async () => {
    const port = await freePort();
    const dev = await startDevChain({ port, blockTimeSeconds: 0.2 });
    try {
      await assert.rejects(startDevChain({ port, blockTimeSeconds: 0.2 }), /address already in use/i);
    } finally {
      await dev.stop();
    }
  });

  it('listens on the requested port when it is free', async () => {
    const port = await freePort();
    const dev = await startDevChain({ port, fallbackToFreePort: true, blockTimeSeconds: 0.2 });
    try {
      assert.equal(dev.rpcUrl, `http://127.0.0.1:${port}`);
      assert.equal(dev.portTaken, undefined);
    } finally {
      await dev.stop();
    }
  });

  it('takes a free port instead of a requested one in use when asked to, and says which it wanted', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const dev = await startDevChain({ port, fallbackToFreePort: true, blockTimeSeconds: 0.2 });
      try {
        assert.equal(dev.portTaken, port);
        assert.notEqual(dev.rpcUrl, `http://127.0.0.1:${port}`);
        const { publicClient } = clients(dev.rpcUrl, DEV_CHAIN_ID);
        assert.equal(await publicClient.getChainId(), DEV_CHAIN_ID);
      } finally {
        await dev.stop();
      }
    } finally {
      holder.close();
    }
  });

  it('anvil does not outlive a Node process that exits without stopping it', async () => {
    const { pid } = await childWithDevChain('exit');
    assert.equal(await waitForExit(pid), true);
  });

  it('anvil does not outlive a Node process ended by SIGTERM', async () => {
    const { pid, child } = await childWithDevChain('wait');
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGTERM');
    assert.equal(await exited, 'SIGTERM');
    assert.equal(await waitForExit(pid), true);
  });
});
