import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWalletClient, defineChain, type Hex, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type DevChain, startDevChain } from '../src/chain/dev-chain.ts';
import { type ChainClient, createChainClient } from '../src/chain/rpc.ts';
import type { WalletRow } from '../src/db/schema.ts';
import { Relayer } from '../src/modules/platform/transactions/relayer.ts';
import { queueTransaction } from '../src/modules/platform/transactions/transactions.service.ts';
import { organizationWalletOf } from '../src/modules/platform/wallets/wallets.service.ts';
import { setupTest, type TestEnv } from '../test/harness.ts';
import { networkConfig } from '../test/relayer/harness.ts';

const COUNT = Number(process.env.BENCH_RELAYER_COUNT ?? 1000);
const WALLETS = 10;
const PER_WALLET = Number(process.env.BENCH_RELAYER_PER_WALLET ?? 200);
const BLOCK_TIME = 0.2;
const FUNDS = '0x3635c9adc5dea00000';

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

interface Figure {
  rate: number;
  latency: number[];
  failed: number;
  /** Seconds until the last row was queued (the relayer only). */
  queued?: number;
}

async function rpc(chain: DevChain, method: string, params: unknown[]): Promise<void> {
  await fetch(chain.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

const randomAddress = () => `0x${randomBytes(20).toString('hex')}` as Hex;

/**
 * Baseline: viem directly, as a sane user would: each account counts its nonces locally, sends
 * all its transfers, then waits for their receipts; the accounts run concurrently.
 */
async function viemDirect(
  chain: DevChain,
  client: ChainClient,
  keys: Hex[],
  perAccount: number,
): Promise<Figure> {
  const viemChain = defineChain({
    id: chain.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });
  const latency: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    keys.map(async (key) => {
      const account = privateKeyToAccount(key);
      const wallet = createWalletClient({ account, chain: viemChain, transport: http(chain.rpcUrl) });
      const startNonce = await client.nonce(account.address, 'pending');
      const sentAt: number[] = [];
      const hashes: Hex[] = [];
      for (let i = 0; i < perAccount; i++) {
        sentAt.push(performance.now());
        hashes.push(
          await wallet.sendTransaction({
            to: randomAddress(),
            value: 1n,
            nonce: startNonce + i,
            gas: 21_000n,
          }),
        );
      }
      for (const [i, hash] of hashes.entries()) {
        while (!(await client.receipt(hash))) await sleep(20);
        latency.push(performance.now() - sentAt[i]!);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { rate: (keys.length * perAccount) / seconds, latency: latency.sort((a, b) => a - b), failed: 0 };
}

/** The relayer, from rows queued in the database (each wallet's queued concurrently) to COMPLETED. */
async function throughRelayer(
  env: TestEnv,
  chainId: number,
  wallets: WalletRow[],
  perWallet: number,
): Promise<Figure> {
  const relayer = new Relayer(env.ctx, { instanceId: 'bench', pollMs: 50 });
  const total = wallets.length * perWallet;
  const ids: string[] = [];
  const t0 = performance.now();
  relayer.start();
  await Promise.all(
    wallets.map(async (wallet) => {
      for (let i = 0; i < perWallet; i++) {
        const row = await queueTransaction(env.database.db, {
          networkId: chainId,
          wallet,
          type: 'FUNDING',
          to: randomAddress(),
          data: '0x',
          value: 1n,
          gasLimit: 21_000n,
        });
        ids.push(row.id);
      }
    }),
  );
  const queued = (performance.now() - t0) / 1000;
  for (;;) {
    const { n } = await env.database.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where(
        'from_address',
        'in',
        wallets.map((w) => w.address),
      )
      .where('state', 'in', ['COMPLETED', 'CANCELLED'])
      .executeTakeFirstOrThrow();
    if (Number(n) >= total) break;
    await sleep(50);
  }
  const seconds = (performance.now() - t0) / 1000;
  await relayer.stop();
  const rows = await env.database.db
    .selectFrom('transactions')
    .select(['created_at', 'completed_at', 'state'])
    .where('id', 'in', ids)
    .execute();
  return {
    rate: total / seconds,
    latency: rows.map((r) => r.completed_at!.getTime() - r.created_at.getTime()).sort((a, b) => a - b),
    failed: rows.filter((r) => r.state !== 'COMPLETED').length,
    queued,
  };
}

/**
 * (a) 1,000 native transfers from one wallet through the relayer (queued in PostgreSQL, nonce,
 * signing, broadcast, receipts, confirmation) against the same 1,000 sent directly with viem;
 * (b) 10 organization wallets × 200 transfers at once through the relayer against viem sending
 * the same from 10 accounts concurrently. One anvil with 0.2 s blocks, 1 confirmation.
 */
export async function relayerBench(): Promise<void> {
  const chain = await startDevChain({ blockTimeSeconds: BLOCK_TIME });
  const client = createChainClient(chain.rpcUrl);
  const env = await setupTest();
  await env.insertNetwork(chain.chainId, networkConfig(chain.rpcUrl, { maxConcurrentTxs: 1000 }), 'anvil');
  const wallets: WalletRow[] = [];
  for (let i = 0; i < WALLETS + 1; i++) {
    const organization = await env.createOrganization();
    const wallet = await organizationWalletOf(env.database.db, organization.id);
    await rpc(chain, 'anvil_setBalance', [wallet.address, FUNDS]);
    wallets.push(wallet);
  }
  const keys = Array.from({ length: WALLETS + 1 }, () => generatePrivateKey());
  for (const key of keys) await rpc(chain, 'anvil_setBalance', [privateKeyToAccount(key).address, FUNDS]);

  const singleDirect = await viemDirect(chain, client, keys.slice(0, 1), COUNT);
  const singleRelayer = await throughRelayer(env, chain.chainId, wallets.slice(0, 1), COUNT);
  const manyDirect = await viemDirect(chain, client, keys.slice(1), PER_WALLET);
  const manyRelayer = await throughRelayer(env, chain.chainId, wallets.slice(1), PER_WALLET);
  await env.close();
  await chain.stop();

  const line = (name: string, figure: Figure, ratio: string) =>
    `${name.padEnd(44)} ${figure.rate.toFixed(0).padStart(6)} tx/s  p50 ${percentile(figure.latency, 0.5).toFixed(0)} ms  p99 ${percentile(figure.latency, 0.99).toFixed(0)} ms  ${ratio}`;
  const pair = (title: string, direct: Figure, relayed: Figure) => [
    title,
    line('baseline: viem directly (send, then receipts)', direct, '(baseline)'),
    line('relayer (queued → COMPLETED)', relayed, `${(relayed.rate / direct.rate).toFixed(3)}× baseline`),
    `${relayed.failed > 0 ? `NOT COMPLETED: ${relayed.failed}` : 'all completed'} (the last row queued after ${relayed.queued?.toFixed(1)} s)`,
  ];
  process.stdout.write(
    `${[
      ...pair(
        `(a) ${COUNT} transfers from one wallet, anvil with ${BLOCK_TIME} s blocks, 1 confirmation`,
        singleDirect,
        singleRelayer,
      ),
      ...pair(
        `(b) ${WALLETS} organization wallets × ${PER_WALLET} transfers at once (viem: ${WALLETS} accounts concurrently)`,
        manyDirect,
        manyRelayer,
      ),
    ].join('\n')}\n`,
  );
}
