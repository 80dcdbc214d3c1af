import { setTimeout as sleep } from 'node:timers/promises';
import { type Abi, type Address, zeroAddress } from 'viem';
import { type PlatformContractName, platformContracts } from '../../src/chain/artifacts.ts';
import { type CapabilityName, capabilitiesOf } from '../../src/chain/capabilities.ts';
import type {
  CollectionRow,
  TokenIdAssignmentStrategy,
  TokenType,
  TransactionRow,
  WalletRow,
} from '../../src/db/schema.ts';
import { organizationWalletOf } from '../../src/modules/platform/wallets/wallets.service.ts';
import { buildWorker, type Worker } from '../../src/worker.ts';
import { insertCollection } from '../factories.ts';
import { type Actor, setupTest, type TestEnv, type TestOptions } from '../harness.ts';
import { CHAIN_ID, networkConfig } from '../relayer/harness.ts';
import { startTestChain, type TestChain } from './anvil.ts';

/**
 * The whole service against a real chain: the API (inject), an anvil dev chain registered as
 * network 31337, an organization with a funded wallet and an ORG_ADMIN, and a worker (relayer and
 * settlement handlers) polling fast. For tests that go from a request to tokens on-chain.
 */
export interface FlowTest {
  env: TestEnv;
  chain: TestChain;
  networkId: number;
  organizationId: string;
  /** The organization's signing wallet (funded). */
  wallet: WalletRow;
  admin: Actor;
  member: Actor;
  /**
   * Polls until every transaction is COMPLETED or CANCELLED, and returns them in the order of
   * `ids` (an id given more than once, as records sharing a batch give it, answers its row each time).
   */
  settled(ids: string[], timeoutMs?: number): Promise<TransactionRow[]>;
  /**
   * A platform ERC-721 or ERC-1155 contract deployed from a dev account with `admin` (default the
   * organization's wallet, so the relayer can mint) and registered as a deployed collection.
   */
  deployCollection(
    kind: TokenType,
    options?: {
      admin?: Address;
      strategy?: TokenIdAssignmentStrategy;
      /** Registered instead of the ABI's (e.g. a batch mint left out). */
      capabilities?: CapabilityName[];
      baseUri?: string;
      /** The platform variant deployed (default FlexibleERC721 / FlexibleERC1155). */
      variant?: PlatformContractName;
    },
  ): Promise<{ address: Address; collection: CollectionRow }>;
  /** Polls `probe` until it returns a value other than undefined. */
  until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs?: number): Promise<T>;
  /** Stops the worker (relayer and jobs) and, once `meanwhile` is done, starts a new one. */
  restartWorker(meanwhile: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export async function setupFlowTest(
  configOverrides: Record<string, string> = {},
  options: TestOptions = {},
): Promise<FlowTest> {
  const env = await setupTest(configOverrides, options);
  const chain = await startTestChain();
  let worker: Worker | undefined;
  try {
    await env.insertNetwork(CHAIN_ID, networkConfig(chain.dev.rpcUrl), 'anvil');
    const organization = await env.createOrganization();
    // The organization may deploy on the chain (organizations' network_ids).
    await env.database.db
      .updateTable('organizations')
      .set({ network_ids: [CHAIN_ID] })
      .where('id', '=', organization.id)
      .execute();
    const wallet = await organizationWalletOf(env.database.db, organization.id);
    await chain.publicClient.request({
      method: 'anvil_setBalance' as never,
      params: [wallet.address, `0x${(10n ** 22n).toString(16)}`] as never,
    });
    const admin = await env.createUser(organization.id, 'ORG_ADMIN');
    const member = await env.createUser(organization.id, 'ORG_MEMBER');
    const startWorker = () =>
      buildWorker(env.ctx, env.database, {
        pollIntervalMs: 50,
        relayerPollMs: 100,
      });
    worker = await startWorker();
    const until = async <T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await probe();
        if (value !== undefined) return value;
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
        await sleep(100);
      }
    };
    let running = worker;
    const deployCollection: FlowTest['deployCollection'] = async (kind, options = {}) => {
      const artifact =
        options.variant !== undefined
          ? platformContracts[options.variant]
          : kind === 'ERC721'
            ? platformContracts.FlexibleERC721
            : platformContracts.FlexibleERC1155;
      // Every platform variant has the same constructor (src/chain/artifacts.ts).
      const args = [
        'Test',
        'TST',
        options.baseUri ?? 'https://meta.test/',
        '',
        options.admin ?? (wallet.address as Address),
        0n,
        zeroAddress,
        0n,
      ] as const;
      const address = await chain.deploy(
        chain.wallet(0),
        artifact as typeof platformContracts.FlexibleERC721,
        args,
      );
      const collection = await insertCollection(env.database.db, {
        organizationId: organization.id,
        contractAddress: address,
        abi: [...artifact.abi],
        capabilities: options.capabilities ?? capabilitiesOf(artifact.abi as Abi),
        tokenType: kind,
        strategy: options.strategy ?? 'AUTOMATIC',
      });
      return { address, collection };
    };
    return {
      deployCollection,
      env,
      chain,
      networkId: CHAIN_ID,
      organizationId: organization.id,
      wallet,
      admin,
      member,
      until,
      settled: (ids, timeoutMs) =>
        until(
          async () => {
            const rows = await env.database.db
              .selectFrom('transactions')
              .selectAll()
              .where('id', 'in', ids)
              .execute();
            const done = rows.every((r) => r.state === 'COMPLETED' || r.state === 'CANCELLED');
            // Several records may share a transaction: an id given twice is one row.
            return rows.length === new Set(ids).size && done
              ? ids.map((id) => rows.find((r) => r.id === id)!)
              : undefined;
          },
          `transactions ${ids.join(', ')} to settle`,
          timeoutMs,
        ),
      async restartWorker(meanwhile) {
        await running.stop();
        await meanwhile();
        running = await startWorker();
        worker = running;
      },
      async close() {
        await running.stop();
        await chain.dev.stop();
        await env.close();
      },
    };
  } catch (error) {
    await worker?.stop();
    await chain.dev.stop();
    await env.close();
    throw error;
  }
}
