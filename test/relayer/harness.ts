import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Hex } from 'viem';
import { type DevChain, startDevChain } from '../../src/chain/dev-chain.ts';
import { type ChainClient, createChainClient } from '../../src/chain/rpc.ts';
import type { Database, NetworkConfig, NetworkRow, TransactionRow, WalletRow } from '../../src/db/schema.ts';
import { Relayer, type RelayerOptions } from '../../src/modules/platform/transactions/relayer.ts';
import { queueTransaction } from '../../src/modules/platform/transactions/transactions.service.ts';
import { organizationWalletOf } from '../../src/modules/platform/wallets/wallets.service.ts';
import { type GateProxy, startGateProxy } from '../chain/gate-proxy.ts';
import { setupTest, type TestEnv } from '../harness.ts';

export const CHAIN_ID = 31337;

export function networkConfig(url: string, overrides: Partial<NetworkConfig> = {}): NetworkConfig {
  return {
    autoDeploy: false,
    autoFundAmount: '0',
    confirmations: 1,
    eip155: true,
    gasStrategy: { type: 'AUTO', maxFeePerGas: null, maxPriorityFeePerGas: null, bumpPercent: 13 },
    maxConcurrentTxs: 64,
    batch: { maxItems: 100, maxGas: 12_000_000, windowMs: 1000 },
    poa: false,
    txResubmitBlockCount: 3,
    url,
    ...overrides,
  };
}

/** Puts the dev network's node behind a gate (test/chain/gate-proxy.ts): its calls go through it. */
export async function gateNode(db: Kysely<Database>, rpcUrl: string): Promise<GateProxy> {
  const gate = await startGateProxy(rpcUrl);
  await db
    .updateTable('networks')
    .set({ config: JSON.stringify(networkConfig(gate.url)) })
    .where('id', '=', CHAIN_ID)
    .execute();
  return gate;
}

export interface RelayerTest {
  env: TestEnv;
  chain: DevChain;
  client: ChainClient;
  network(): Promise<NetworkRow>;
  wallet: WalletRow;
  organizationId: string;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Queues `count` native transfers of distinct values to fresh addresses. */
  queueTransfers(
    count: number,
    from?: WalletRow,
  ): Promise<{ rows: TransactionRow[]; recipients: Hex[]; values: bigint[] }>;
  relayer(options?: Partial<RelayerOptions>): Relayer;
  /** Polls until every row is COMPLETED or CANCELLED (bounded), and returns them. */
  settled(ids: string[], timeoutMs?: number): Promise<TransactionRow[]>;
  close(): Promise<void>;
}

export async function setupRelayerTest(
  config: Partial<NetworkConfig> = {},
  blockTimeSeconds = 0.2,
): Promise<RelayerTest> {
  const env = await setupTest();
  const chain = await startDevChain({ blockTimeSeconds });
  const relayers: Relayer[] = [];
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  await env.insertNetwork(CHAIN_ID, networkConfig(chain.rpcUrl, config), 'anvil');
  const organization = await env.createOrganization();
  const wallet = await organizationWalletOf(env.database.db, organization.id);
  await rpc('anvil_setBalance', [wallet.address, `0x${(10n ** 22n).toString(16)}`]);

  return {
    env,
    chain,
    client: createChainClient(chain.rpcUrl),
    wallet,
    organizationId: organization.id,
    rpc,
    network: async () =>
      await env.database.db
        .selectFrom('networks')
        .selectAll()
        .where('id', '=', CHAIN_ID)
        .executeTakeFirstOrThrow(),
    async queueTransfers(count, from = wallet) {
      const recipients: Hex[] = [];
      const values: bigint[] = [];
      const rows: TransactionRow[] = [];
      for (let i = 0; i < count; i++) {
        const to = `0x${randomBytes(20).toString('hex')}` as Hex;
        const value = 1_000_000n + BigInt(i);
        recipients.push(to);
        values.push(value);
        rows.push(
          await queueTransaction(env.database.db, {
            networkId: CHAIN_ID,
            wallet: from,
            type: 'FUNDING',
            to,
            data: '0x',
            value,
          }),
        );
      }
      return { rows, recipients, values };
    },
    relayer(options = {}) {
      const relayer = new Relayer(env.ctx, {
        instanceId: `test-${randomBytes(4).toString('hex')}`,
        pollMs: 100,
        ...options,
      });
      relayers.push(relayer);
      return relayer;
    },
    async settled(ids, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const rows = await env.database.db
          .selectFrom('transactions')
          .selectAll()
          .where('id', 'in', ids)
          .execute();
        if (
          rows.length === ids.length &&
          rows.every((r) => r.state === 'COMPLETED' || r.state === 'CANCELLED')
        ) {
          return ids.map((id) => rows.find((r) => r.id === id)!);
        }
        if (Date.now() > deadline) {
          const states = rows.map((r) => `${r.state}${r.last_error ? ` (${r.last_error})` : ''}`);
          throw new Error(`transactions not settled in ${timeoutMs} ms: ${states.join(', ')}`);
        }
        await sleep(100);
      }
    },
    async close() {
      await Promise.all(relayers.map((r) => r.stop()));
      await chain.stop();
      await env.close();
    },
  };
}
