import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWalletClient, defineChain, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevChain } from '../src/chain/dev-chain.ts';
import { createChainClient } from '../src/chain/rpc.ts';
import { Relayer } from '../src/modules/transactions/relayer.ts';
import { queueTransaction } from '../src/modules/transactions/transactions.service.ts';
import { organizationWalletOf } from '../src/modules/wallets/wallets.service.ts';
import { setupTest } from '../test/harness.ts';
import { networkConfig } from '../test/relayer/harness.ts';

const COUNT = Number(process.env.BENCH_RELAYER_COUNT ?? 1000);
const BLOCK_TIME = 0.2;

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/**
 * 1,000 native transfers from one wallet through the relayer (queued in PostgreSQL, nonce,
 * signing, broadcast, receipts, confirmation) against the same 1,000 sent directly with viem
 * (local nonces, fire and wait for receipts), on one anvil with 0.2 s blocks.
 */
export async function relayerBench(): Promise<void> {
  const chain = await startDevChain({ blockTimeSeconds: BLOCK_TIME });
  const client = createChainClient(chain.rpcUrl);
  const viemChain = defineChain({
    id: chain.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  });

  // Baseline: viem directly, one account, nonces counted locally, all sent then awaited.
  const account = privateKeyToAccount(chain.accounts[1]!.privateKey);
  const wallet = createWalletClient({ account, chain: viemChain, transport: http(chain.rpcUrl) });
  const startNonce = await client.nonce(account.address, 'pending');
  const sentAt: number[] = [];
  const t0 = performance.now();
  const hashes: Hex[] = [];
  for (let i = 0; i < COUNT; i++) {
    sentAt.push(performance.now());
    hashes.push(
      await wallet.sendTransaction({
        to: `0x${randomBytes(20).toString('hex')}` as Hex,
        value: 1n,
        nonce: startNonce + i,
        gas: 21_000n,
      }),
    );
  }
  const directLatency: number[] = [];
  for (const [i, hash] of hashes.entries()) {
    while (!(await client.receipt(hash))) await sleep(20);
    directLatency.push(performance.now() - sentAt[i]!);
  }
  const directSeconds = (performance.now() - t0) / 1000;

  // The relayer, from rows queued in the database to COMPLETED.
  const env = await setupTest();
  await env.insertNetwork(chain.chainId, networkConfig(chain.rpcUrl, { maxConcurrentTxs: 1000 }), 'anvil');
  const organization = await env.createOrganization();
  const orgWallet = await organizationWalletOf(env.database.db, organization.id);
  await fetch(chain.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'anvil_setBalance',
      params: [orgWallet.address, '0x3635c9adc5dea00000'],
    }),
  });
  const relayer = new Relayer(env.ctx, {
    instanceId: 'bench',
    pollMs: 50,
  });
  const t1 = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    const row = await queueTransaction(env.database.db, {
      networkId: chain.chainId,
      wallet: orgWallet,
      type: 'FUNDING',
      to: `0x${randomBytes(20).toString('hex')}`,
      data: '0x',
      value: 1n,
      gasLimit: 21_000n,
    });
    ids.push(row.id);
    if (i === 0) relayer.start();
  }
  for (;;) {
    const { n } = await env.database.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('state', 'in', ['COMPLETED', 'CANCELLED'])
      .executeTakeFirstOrThrow();
    if (Number(n) >= COUNT) break;
    await sleep(50);
  }
  const relayerSeconds = (performance.now() - t1) / 1000;
  const rows = await env.database.db
    .selectFrom('transactions')
    .select(['created_at', 'completed_at', 'state'])
    .where('id', 'in', ids)
    .execute();
  const relayerLatency = rows
    .map((r) => r.completed_at!.getTime() - r.created_at.getTime())
    .sort((a, b) => a - b);
  const failed = rows.filter((r) => r.state !== 'COMPLETED').length;
  await relayer.stop();
  await env.close();
  await chain.stop();

  directLatency.sort((a, b) => a - b);
  const directRate = COUNT / directSeconds;
  const relayerRate = COUNT / relayerSeconds;
  const line = (name: string, rate: number, lat: number[], ratio: string) =>
    `${name.padEnd(44)} ${rate.toFixed(0).padStart(6)} tx/s  p50 ${percentile(lat, 0.5).toFixed(0)} ms  p99 ${percentile(lat, 0.99).toFixed(0)} ms  ${ratio}`;
  process.stdout.write(
    `${[
      `${COUNT} transfers from one wallet, anvil with ${BLOCK_TIME} s blocks, 1 confirmation`,
      line('baseline: viem directly (send, then receipts)', directRate, directLatency, '(baseline)'),
      line(
        'relayer (queued → COMPLETED)',
        relayerRate,
        relayerLatency,
        `${(relayerRate / directRate).toFixed(3)}× baseline`,
      ),
      failed > 0 ? `NOT COMPLETED: ${failed}` : 'all completed',
    ].join('\n')}\n`,
  );
}
