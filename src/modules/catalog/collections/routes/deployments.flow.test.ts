import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Abi, type Address, getAddress, type Hex, zeroAddress, zeroHash } from 'viem';
import { MockERC20Abi } from '../../../../../contracts/artifacts/abis.ts';
import mockErc20 from '../../../../../contracts/artifacts/test/MockERC20.json' with { type: 'json' };
import { assertError } from '../../../../../test/assertions.ts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import {
  PLATFORM_CONTRACT_NAMES,
  PLATFORM_CONTRACT_STANDARD,
  type PlatformContractName,
  platformContracts,
} from '../../../../chain/artifacts.ts';
import { capabilitiesOf } from '../../../../chain/capabilities.ts';

const OWNER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const RECEIVER = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

interface Deployment {
  type: string;
  status: 'PENDING' | 'SUCCESS' | 'FAILED';
  address: Address | null;
  capabilities: string[];
  network_id: number;
  symbol: string;
  token_id_assignment_strategy: string;
  token_type: string;
  transaction_id: string | null;
  failure_reason: string | null;
}

/**
 * Deployments on a real chain: the relayer sends them, the
 * DEPLOY handler settles them, and the contracts on chain are what the service promised.
 */
describe('collection deployments on chain', () => {
  let flow: FlowTest;
  before(async () => {
    flow = await setupFlowTest();
    const response = await flow.env.call('PATCH', `/v1/organizations/${flow.organizationId}`, {
      token: flow.env.platformAdmin.token,
      body: { network_ids: [flow.networkId] },
    });
    assert.equal(response.statusCode, 200, response.body);
  });
  after(() => flow.close());

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
    flow.env.call(method, url, { token: flow.admin.token, ...(body !== undefined && { body }) });

  async function createCollection(body: Record<string, unknown>) {
    const response = await call('POST', '/v1/collections', body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { id: string; deployment: Deployment | null };
  }

  async function requestDeployment(id: string, body: Record<string, unknown>) {
    const response = await call('POST', `/v1/collections/${id}/deployment-request`, {
      network_id: flow.networkId,
      ...body,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { status: string; transaction_id: string | null };
  }

  /** Waits for the deployment to leave PENDING and returns the collection's deployment. */
  async function settledDeployment(id: string): Promise<Deployment> {
    return flow.until(async () => {
      const response = await call('GET', `/v1/collections/${id}`);
      const deployment = response.json().deployment as Deployment;
      return deployment.status === 'PENDING' ? undefined : deployment;
    }, `the deployment of collection ${id}`);
  }

  const read = <T>(address: Address, abi: Abi, functionName: string, args: unknown[] = []) =>
    flow.chain.publicClient.readContract({ address, abi, functionName, args }) as Promise<T>;

  it('deploys every platform variant: SUCCESS with the address, the capabilities and the contract promised', async () => {
    const variants = PLATFORM_CONTRACT_NAMES;
    const collections = await Promise.all(
      variants.map((variant, i) =>
        createCollection({
          name: `Platform ${variant}`,
          deployment_request: {
            type: 'PLATFORM',
            network_id: flow.networkId,
            platform: { symbol: `P${i}`, variant, max_supply: String(100 + i) },
          },
        }),
      ),
    );
    for (const collection of collections) assert.equal(collection.deployment!.status, 'PENDING');
    await flow.settled(collections.map((c) => c.deployment!.transaction_id!));

    await Promise.all(
      collections.map(async (collection, i) => {
        const variant = variants[i] as PlatformContractName;
        const abi = platformContracts[variant].abi as Abi;
        const deployment = await settledDeployment(collection.id);
        assert.equal(deployment.status, 'SUCCESS', `${variant}: ${deployment.failure_reason}`);
        assert.ok(deployment.address);
        assert.equal(deployment.address, getAddress(deployment.address));
        assert.deepEqual(deployment.capabilities, capabilitiesOf(abi));
        assert.equal(deployment.token_type, PLATFORM_CONTRACT_STANDARD[variant]);
        assert.equal(deployment.symbol, `P${i}`);

        const address = deployment.address;
        const base = `http://tokens.test/v1/metadata/${collection.id}`;
        assert.equal(await read(address, abi, 'name'), `Platform ${variant}`);
        assert.equal(await read(address, abi, 'symbol'), `P${i}`);
        assert.equal(await read(address, abi, 'baseURI'), `${base}/`);
        assert.equal(await read(address, abi, 'contractURI'), base);
        assert.equal(await read(address, abi, 'maxSupply'), BigInt(100 + i));
        assert.equal(await read(address, abi, 'hasRole', [zeroHash, flow.wallet.address]), true);
        assert.deepEqual(await read(address, abi, 'royaltyInfo', [1n, 10_000n]), [zeroAddress, 0n]);

        const status = await call('GET', `/v1/collections/${collection.id}/deployment-request`);
        assert.deepEqual(status.json(), {
          status: 'SUCCESS',
          transaction_id: collection.deployment!.transaction_id,
          failure_reason: null,
        });
        const publicCapabilities = await flow.env.call(
          'GET',
          `/v1/public/collections/${collection.id}/capabilities`,
        );
        assert.deepEqual(publicCapabilities.json(), { capabilities: deployment.capabilities });
      }),
    );
  });

  it('deploys with the royalty set before deployment and hands DEFAULT_ADMIN_ROLE to the owner too', async () => {
    const collection = await createCollection({ name: 'Owned' });
    const edited = await call('PATCH', `/v1/collections/${collection.id}`, {
      royalty_info: { receiver: RECEIVER, amount_bps: 300 },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    const { transaction_id } = await requestDeployment(collection.id, {
      type: 'PLATFORM',
      platform: { symbol: 'OWN', variant: 'SignatureERC721', owner: OWNER.toLowerCase() },
    });
    await flow.settled([transaction_id!]);
    const deployment = await settledDeployment(collection.id);
    assert.equal(deployment.status, 'SUCCESS', deployment.failure_reason ?? '');
    const abi = platformContracts.SignatureERC721.abi as Abi;
    const address = deployment.address!;
    assert.deepEqual(await read(address, abi, 'royaltyInfo', [1n, 10_000n]), [RECEIVER, 300n]);
    await flow.until(
      async () => ((await read(address, abi, 'hasRole', [zeroHash, OWNER])) ? true : undefined),
      'the owner to be granted DEFAULT_ADMIN_ROLE',
    );
    assert.equal(await read(address, abi, 'hasRole', [zeroHash, flow.wallet.address]), true);
  });

  it('mirrors royalty_info edits on the deployed contract through ROYALTY_UPDATE transactions', async () => {
    const collection = await createCollection({
      name: 'Royalties',
      deployment_request: {
        type: 'PLATFORM',
        network_id: flow.networkId,
        platform: { symbol: 'ROY', variant: 'FlexibleERC1155' },
      },
    });
    await flow.settled([collection.deployment!.transaction_id!]);
    const address = (await settledDeployment(collection.id)).address!;
    const abi = platformContracts.FlexibleERC1155.abi as Abi;
    const royaltyUpdates = async () => {
      const rows = await flow.env.database.db
        .selectFrom('transactions')
        .select('id')
        .where('type', '=', 'ROYALTY_UPDATE')
        .where('to_address', '=', address)
        .execute();
      return rows.map((r) => r.id);
    };

    const set = await call('PATCH', `/v1/collections/${collection.id}`, {
      royalty_info: { receiver: RECEIVER, amount_bps: 500 },
    });
    assert.equal(set.statusCode, 200, set.body);
    const [first] = await flow.settled(await royaltyUpdates());
    assert.equal(first!.on_chain_status, 'SUCCESS', first!.failure_reason ?? '');
    assert.deepEqual(await read(address, abi, 'royaltyInfo', [7n, 10_000n]), [RECEIVER, 500n]);

    const cleared = await call('PATCH', `/v1/collections/${collection.id}`, { royalty_info: null });
    assert.equal(cleared.statusCode, 200, cleared.body);
    const rows = await flow.settled(await royaltyUpdates());
    assert.equal(rows.length, 2);
    assert.ok(rows.every((r) => r.on_chain_status === 'SUCCESS'));
    assert.deepEqual(await read(address, abi, 'royaltyInfo', [7n, 10_000n]), [zeroAddress, 0n]);
  });

  it('deploys a CUSTOM contract (its symbol read once deployed); a reverting constructor FAILS and can be resubmitted', async () => {
    const artifact = platformContracts.FlexibleERC721;
    const custom = (admin: string) => ({
      abi: artifact.abi,
      bytecode: artifact.bytecode,
      constructor_args: ['Custom', 'CST', 'https://c.test/', 'https://c.test/c', admin, '0', zeroAddress, 0],
    });
    const good = await createCollection({ name: 'Custom' });
    const bad = await createCollection({ name: 'Custom failing' });
    const [goodTx, badTx] = await Promise.all([
      requestDeployment(good.id, { type: 'CUSTOM', custom: custom(flow.wallet.address) }),
      // admin = 0 reverts the constructor with InvalidAdmin().
      requestDeployment(bad.id, { type: 'CUSTOM', custom: custom(zeroAddress) }),
    ]);
    await flow.settled([goodTx.transaction_id!, badTx.transaction_id!]);

    const deployed = await settledDeployment(good.id);
    assert.equal(deployed.status, 'SUCCESS', deployed.failure_reason ?? '');
    assert.equal(deployed.type, 'CUSTOM');
    assert.equal(deployed.symbol, 'CST');
    assert.deepEqual(deployed.capabilities, capabilitiesOf(artifact.abi as Abi));
    assert.equal(await read(deployed.address!, artifact.abi as Abi, 'name'), 'Custom');

    const failed = await settledDeployment(bad.id);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.address, null);
    assert.deepEqual(failed.capabilities, []);
    const status = await call('GET', `/v1/collections/${bad.id}/deployment-request`);
    assert.equal(status.json().status, 'FAILED');
    assert.equal(status.json().transaction_id, badTx.transaction_id);
    assert.match(status.json().failure_reason, /InvalidAdmin|revert/i);

    const retry = await requestDeployment(bad.id, { type: 'CUSTOM', custom: custom(flow.wallet.address) });
    assert.equal(retry.status, 'PENDING');
    assert.notEqual(retry.transaction_id, badTx.transaction_id);
    await flow.settled([retry.transaction_id!]);
    const redeployed = await settledDeployment(bad.id);
    assert.equal(redeployed.status, 'SUCCESS', redeployed.failure_reason ?? '');
    assert.equal(redeployed.failure_reason, null);
  });

  it('registers EXTERNAL contracts read from the chain: capabilities by ERC-165 and bytecode, symbol, no transaction', async () => {
    const deployer = flow.chain.wallet(0);
    const args = (name: string, symbol: string) =>
      [
        name,
        symbol,
        'https://x.test/',
        'https://x.test/c',
        deployer.account.address,
        0n,
        zeroAddress,
        0n,
      ] as const;
    const [erc721, erc1155, erc20] = await Promise.all([
      flow.chain.deploy(deployer, platformContracts.FlexibleERC721, args('Ext721', 'E721')),
      flow.chain.deploy(deployer, platformContracts.FrozenERC1155, args('Ext1155', 'E1155')),
      flow.chain.deploy(deployer, { abi: MockERC20Abi, bytecode: mockErc20.bytecode as Hex }, [
        'Coin',
        'CN',
        6,
      ]),
    ]);
    const register = async (external: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const collection = await createCollection({ name: `External ${Math.random()}` });
      const response = await call('POST', `/v1/collections/${collection.id}/deployment-request`, {
        type: 'EXTERNAL',
        network_id: flow.networkId,
        external,
        ...extra,
      });
      return { collection, response };
    };
    const transactionsBefore = await flow.env.database.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();

    const cases = [
      {
        address: erc721.toLowerCase(),
        token_type: 'ERC721',
        artifact: platformContracts.FlexibleERC721,
        symbol: 'E721',
      },
      { address: erc1155, token_type: 'ERC1155', artifact: platformContracts.FrozenERC1155, symbol: 'E1155' },
    ];
    for (const { artifact, symbol, ...external } of cases) {
      const { collection, response } = await register(external, {
        token_id_assignment_strategy: external.token_type === 'ERC721' ? 'EXTERNAL' : 'MANUAL',
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { status: 'SUCCESS', transaction_id: null, failure_reason: null });
      const deployment = (await call('GET', `/v1/collections/${collection.id}`)).json()
        .deployment as Deployment;
      assert.equal(deployment.type, 'EXTERNAL');
      assert.equal(deployment.address, getAddress(external.address));
      assert.equal(deployment.symbol, symbol);
      assert.equal(deployment.token_type, external.token_type);
      assert.deepEqual(deployment.capabilities, capabilitiesOf(artifact.abi as Abi));
      const stored = await flow.env.database.db
        .selectFrom('collections')
        .select('abi')
        .where('id', '=', collection.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(capabilitiesOf(stored.abi as Abi), deployment.capabilities);

      // With the ABI given, it is kept as given.
      const withAbi = await register({ ...external, abi: artifact.abi });
      assert.equal(withAbi.response.statusCode, 200, withAbi.response.body);
      const detailed = (await call('GET', `/v1/collections/${withAbi.collection.id}`)).json().deployment;
      assert.deepEqual(detailed.capabilities, deployment.capabilities);
    }

    const wrongStandard = await register({ address: erc721, token_type: 'ERC1155' });
    assertError(wrongStandard.response, 422, 'MISSING_TOKEN_CAPABILITY');
    const coin = await register({ address: erc20, token_type: 'ERC721' });
    assertError(coin.response, 422, 'MISSING_TOKEN_CAPABILITY');
    const idless = await register(
      { address: erc1155, token_type: 'ERC1155' },
      { token_id_assignment_strategy: 'EXTERNAL' },
    );
    assert.equal(idless.response.statusCode, 400, idless.response.body);
    const nothing = await register({ address: deployer.account.address, token_type: 'ERC721' });
    assert.equal(nothing.response.statusCode, 400, nothing.response.body);
    assert.deepEqual(
      nothing.response.json().error.fields.map((f: { path: string }) => f.path),
      ['/external/address'],
    );
    for (const failed of [wrongStandard, coin, idless, nothing]) {
      const collection = (await call('GET', `/v1/collections/${failed.collection.id}`)).json();
      assert.equal(collection.deployment, null);
    }
    const transactionsAfter = await flow.env.database.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(transactionsAfter.n, transactionsBefore.n, 'EXTERNAL sends nothing');
  });
});
