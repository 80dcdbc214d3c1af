import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  parseEther,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { DEV_CHAIN_ID, DEV_CHAIN_MNEMONIC } from '../src/chain/dev-chain.ts';
import { createChainClient } from '../src/chain/rpc.ts';
import { createDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createKeyring } from '../src/lib/secrets.ts';
import { DEV_CHAIN_AUTO_FUND_WEI } from '../src/modules/platform/networks/networks.service.ts';
import { ensurePlatformWallet } from '../src/modules/platform/wallets/wallets.service.ts';
import { DEV_CHAIN_STATE_FILE, type RunningService, startService } from '../src/service.ts';
import { createTestDatabase, PLATFORM_ADMIN_EMAIL, TEST_PASSWORD, testConfig } from './harness.ts';

/** anvil's first funded account for DEV_CHAIN_MNEMONIC (m/44'/60'/0'/0/0). */
const FIRST_DEV_ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/**
 * DESIGN.md "Embedded default": with DEV_CHAIN on, the service starts anvil, registers it as
 * network 31337 with a funded platform wallet, gives the bootstrap organization the network,
 * stops the chain with itself, and finds all of it again (chain state included) on the next start.
 */
describe('dev chain at service start', () => {
  /** One installation: a database of its own and a DATA_DIR of its own. */
  interface Site {
    databaseUrl: string;
    dataDir: string;
    db: DatabaseHandle['db'];
  }
  const cleanups: (() => Promise<void>)[] = [];
  let running: RunningService | undefined;
  after(async () => {
    await running?.stop();
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function newSite(): Promise<Site> {
    const database = await createTestDatabase();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tis-dev-chain-'));
    const handle = createDatabase(database.url, { max: 2 });
    cleanups.push(async () => {
      await handle.destroy();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    return { databaseUrl: database.url, dataDir, db: handle.db };
  }

  function configOf(site: Site) {
    return testConfig(site.databaseUrl, {
      DEV_CHAIN: 'true',
      // Any free port: 8545 may be another developer's chain.
      DEV_CHAIN_PORT: '0',
      DATA_DIR: site.dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
    });
  }

  async function start(site: Site): Promise<RunningService> {
    running = await startService(configOf(site), createLogger('silent'));
    assert.ok(running.url, 'the API is listening');
    assert.ok(running.devChain?.rpcUrl, 'the dev chain url is reported');
    return running;
  }

  async function stop(service: RunningService): Promise<void> {
    await service.stop();
    running = undefined;
  }

  async function api(service: RunningService, method: string, urlPath: string, token?: string) {
    const response = await fetch(`${service.url}${urlPath}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      ...(method === 'POST' && {
        body: JSON.stringify({ email: PLATFORM_ADMIN_EMAIL, password: TEST_PASSWORD }),
      }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function login(service: RunningService): Promise<string> {
    const response = await api(service, 'POST', '/v1/auth/login');
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body.access_token as string;
  }

  async function devNetworkOf(service: RunningService, token: string) {
    const response = await api(service, 'GET', '/v1/networks', token);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const networks = response.body.results as { id: number; name: string; config: { url: string } }[];
    const network = networks.find((n) => n.id === DEV_CHAIN_ID);
    assert.ok(network, `network ${DEV_CHAIN_ID} is listed: ${JSON.stringify(networks)}`);
    return network;
  }

  async function platformWallets(site: Site) {
    return site.db.selectFrom('wallets').selectAll().where('kind', '=', 'PLATFORM').execute();
  }

  async function bootstrapOrganization(site: Site) {
    const admin = await site.db
      .selectFrom('users')
      .select('organization_id')
      .where('email', '=', PLATFORM_ADMIN_EMAIL)
      .executeTakeFirstOrThrow();
    return site.db
      .selectFrom('organizations')
      .selectAll()
      .where('id', '=', admin.organization_id)
      .executeTakeFirstOrThrow();
  }

  /** Whether anything answers JSON-RPC at `url`. */
  async function answers(url: string): Promise<boolean> {
    return createChainClient(url, { timeoutMs: 1_000 })
      .chainId()
      .then(
        () => true,
        () => false,
      );
  }

  it('registers the dev chain with a funded platform wallet, stops it, and finds it all again after a restart', async () => {
    // First start: everything is created.
    const site = await newSite();
    const first = await start(site);
    const firstChainUrl = first.devChain!.rpcUrl;
    const token = await login(first);
    const network = await devNetworkOf(first, token);
    assert.equal(network.name, 'Dev chain (anvil)');
    assert.equal(network.config.url, firstChainUrl);
    const row = await site.db
      .selectFrom('networks')
      .selectAll()
      .where('id', '=', DEV_CHAIN_ID)
      .executeTakeFirstOrThrow();
    assert.deepEqual({ enabled: row.enabled, testnet: row.testnet }, { enabled: true, testnet: true });

    const [wallet, ...others] = await platformWallets(site);
    assert.ok(wallet, 'a platform wallet exists');
    assert.equal(others.length, 0);
    assert.equal(wallet.address, FIRST_DEV_ACCOUNT);
    assert.ok(!wallet.private_key.startsWith('0x'), 'the platform key is encrypted at rest');
    const balance = await createChainClient(firstChainUrl).balance(wallet.address as Hex);
    assert.ok(balance > 0n, `the platform wallet is funded (${balance})`);

    const organization = await bootstrapOrganization(site);
    assert.deepEqual(organization.network_ids, [DEV_CHAIN_ID]);
    const wallets = await api(first, 'GET', `/v1/organizations/${organization.id}/wallets`, token);
    assert.equal(wallets.status, 200, JSON.stringify(wallets.body));
    const [orgWallet] = wallets.body.results as {
      network_ids: number[];
      balance: Record<string, string | null>;
    }[];
    assert.deepEqual(orgWallet?.network_ids, [DEV_CHAIN_ID]);
    assert.equal(orgWallet?.balance[String(DEV_CHAIN_ID)], '0');

    // A drop works out of the box: the organization's empty wallet is topped up from the
    // platform wallet (auto_fund), and a collection deploys on the dev chain.
    assert.equal(organization.auto_fund, true);
    assert.equal(row.config.autoFundAmount, DEV_CHAIN_AUTO_FUND_WEI.toString());
    const created = await fetch(`${first.url}/v1/collections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        name: 'First drop',
        deployment_request: {
          type: 'PLATFORM',
          network_id: DEV_CHAIN_ID,
          platform: { symbol: 'FIRST', variant: 'FlexibleERC721' },
        },
      }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const collectionId = ((await created.json()) as { id: string }).id;
    let status = '';
    for (let i = 0; i < 300 && status !== 'SUCCESS'; i++) {
      const response = await api(first, 'GET', `/v1/collections/${collectionId}/deployment-request`, token);
      status = String(response.body.status);
      assert.notEqual(status, 'FAILED', JSON.stringify(response.body));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 'SUCCESS', 'the collection deployed on the dev chain');

    // A mark in the chain state: a transfer to a fresh address.
    const marker = `0x${randomBytes(20).toString('hex')}` as Address;
    const markerValue = parseEther('0.012345');
    await transfer(firstChainUrl, marker, markerValue);
    assert.equal(await createChainClient(firstChainUrl).balance(marker), markerValue);

    await stop(first);
    assert.equal(await answers(firstChainUrl), false, 'the dev chain stopped with the service');
    assert.ok(existsSync(path.join(site.dataDir, DEV_CHAIN_STATE_FILE)), 'the chain state was written');

    // Second start: the same network row (url updated), the same platform wallet, the same chain.
    const second = await start(site);
    const secondChainUrl = second.devChain!.rpcUrl;
    const again = await devNetworkOf(second, await login(second));
    assert.equal(again.config.url, secondChainUrl);
    const rowAgain = await site.db
      .selectFrom('networks')
      .selectAll()
      .where('id', '=', DEV_CHAIN_ID)
      .executeTakeFirstOrThrow();
    assert.equal(rowAgain.created_at.toISOString(), row.created_at.toISOString());
    assert.equal(rowAgain.name, row.name);
    const walletsAgain = await platformWallets(site);
    assert.deepEqual(
      walletsAgain.map((w) => [w.id, w.address]),
      [[wallet.id, wallet.address]],
    );
    assert.equal(
      await createChainClient(secondChainUrl).balance(marker),
      markerValue,
      'the chain state was kept',
    );
    assert.deepEqual((await bootstrapOrganization(site)).network_ids, [DEV_CHAIN_ID]);
    await stop(second);
    assert.equal(await answers(secondChainUrl), false);
  });

  it('keeps what an admin set on network 31337 and a platform wallet made before, and funds that wallet', async () => {
    const site = await newSite();
    const config = configOf(site);
    const keyring = createKeyring(config.secretKey);
    const earlier = await ensurePlatformWallet(site.db, keyring);
    const adminConfig = { url: 'http://127.0.0.1:9', confirmations: 5, poa: true };
    await site.db
      .insertInto('networks')
      .values({
        id: DEV_CHAIN_ID,
        name: 'Our anvil',
        enabled: true,
        testnet: false,
        config: JSON.stringify(adminConfig),
      })
      .execute();

    const service = await start(site);
    const row = await site.db
      .selectFrom('networks')
      .selectAll()
      .where('id', '=', DEV_CHAIN_ID)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      {
        name: row.name,
        testnet: row.testnet,
        url: row.config.url,
        confirmations: row.config.confirmations,
        poa: row.config.poa,
      },
      { name: 'Our anvil', testnet: false, url: service.devChain?.rpcUrl, confirmations: 5, poa: true },
    );
    const wallets = await platformWallets(site);
    assert.deepEqual(
      wallets.map((w) => w.id),
      [earlier.id],
    );
    assert.notEqual(earlier.address, FIRST_DEV_ACCOUNT);
    const balance = await createChainClient(service.devChain!.rpcUrl).balance(earlier.address as Hex);
    assert.ok(balance > 0n, `the earlier platform wallet is funded on the dev chain (${balance})`);
    // The bootstrap organization was created at this start: it gets the network.
    assert.deepEqual((await bootstrapOrganization(site)).network_ids, [DEV_CHAIN_ID]);
    await stop(service);
  });
});

/** Sends `value` from anvil's second dev account and waits (bounded) until it is mined. */
async function transfer(rpcUrl: string, to: Address, value: bigint): Promise<void> {
  const chain = defineChain({
    id: DEV_CHAIN_ID,
    name: 'dev chain',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = http(rpcUrl);
  const wallet = createWalletClient({
    chain,
    transport,
    account: mnemonicToAccount(DEV_CHAIN_MNEMONIC, { addressIndex: 1 }),
  });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 100 });
  const hash = await wallet.sendTransaction({ to, value });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
  assert.equal(receipt.status, 'success');
}
