import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Abi,
  decodeDeployData,
  decodeFunctionData,
  getAddress,
  type Hex,
  parseAbi,
  zeroAddress,
} from 'viem';
import { MockERC20Abi } from '../../../../../contracts/artifacts/abis.ts';
import mockErc20 from '../../../../../contracts/artifacts/test/MockERC20.json' with { type: 'json' };
import { assertError } from '../../../../../test/assertions.ts';
import { completedTransactionColumns, insertTransaction } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import { capabilitiesOf, capabilityDefinition } from '../../../../chain/capabilities.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { settleTransaction } from '../../../platform/transactions/transaction-settled.task.ts';
import { organizationWalletOf } from '../../../platform/wallets/wallets.service.ts';

const NETWORK = 31337;
const DISABLED_NETWORK = 5;
const OTHER_NETWORK = 7;
const RECEIVER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const PREVIEW = { name: 'Soon', image: 'https://img.test/hidden.png' };

const flexible721 = platformContracts.FlexibleERC721;
/** Constructor arguments of a platform artifact deployed as CUSTOM. */
const PLATFORM_ARGS = ['Custom', 'CST', 'https://c.test/', 'https://c.test/c', RECEIVER, '0', zeroAddress, 0];

function platformRequest(overrides: Record<string, unknown> = {}, platform: Record<string, unknown> = {}) {
  return {
    type: 'PLATFORM',
    network_id: NETWORK,
    platform: { symbol: 'FIX', variant: 'FlexibleERC721', ...platform },
    ...overrides,
  };
}

function customRequest(custom: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
  return { type: 'CUSTOM', network_id: NETWORK, custom, ...overrides };
}

/** The address with the case of its first letter flipped: a wrong EIP-55 checksum. */
function badChecksum(address: string): string {
  const i = address.slice(2).search(/[a-fA-F]/) + 2;
  const c = address[i]!;
  return (
    address.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(i + 1)
  );
}

/** Collections and their deployment, without a chain. */
describe('collections', () => {
  let env: TestEnv;
  let orgId: string;
  let admin: Actor;
  let member: Actor;
  let stranger: Actor;
  let itemTypeId: string;
  let strangerItemTypeId: string;
  let counter = 0;

  before(async () => {
    env = await setupTest();
    await env.insertNetwork(NETWORK);
    await env.insertNetwork(DISABLED_NETWORK);
    await env.insertNetwork(OTHER_NETWORK);
    await env.database.db
      .updateTable('networks')
      .set({ enabled: false })
      .where('id', '=', DISABLED_NETWORK)
      .execute();
    const org = await env.createOrganization();
    const other = await env.createOrganization();
    orgId = org.id;
    for (const id of [org.id, other.id])
      await env.database.db
        .updateTable('organizations')
        .set({ network_ids: [NETWORK, DISABLED_NETWORK] })
        .where('id', '=', id)
        .execute();
    admin = await env.createUser(org.id, 'ORG_ADMIN');
    member = await env.createUser(org.id, 'ORG_MEMBER');
    stranger = await env.createUser(other.id, 'ORG_ADMIN');
    const insertItemType = async (organizationId: string) => {
      const id = uuidv7();
      await env.database.db
        .insertInto('item_types')
        .values({ id, organization_id: organizationId, name: 'type', json_schema: JSON.stringify({}) })
        .execute();
      return id;
    };
    itemTypeId = await insertItemType(org.id);
    strangerItemTypeId = await insertItemType(other.id);
  });
  after(() => env.close());

  const uniqueName = (prefix = 'Collection') => `${prefix} ${++counter}`;

  function create(body: Record<string, unknown>, token = admin.token) {
    return env.call('POST', '/v1/collections', { token, body });
  }

  async function created(body: Record<string, unknown> = {}, token = admin.token) {
    const response = await create({ name: uniqueName(), ...body }, token);
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  }

  function edit(id: string, body: unknown, token = admin.token) {
    return env.call('PATCH', `/v1/collections/${id}`, { token, body });
  }

  function requestDeployment(id: string, body: unknown, token = admin.token) {
    return env.call('POST', `/v1/collections/${id}/deployment-request`, { token, body });
  }

  async function get(id: string, token = admin.token) {
    const response = await env.call('GET', `/v1/collections/${id}`, { token });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  }

  async function row(id: string) {
    return env.database.db
      .selectFrom('collections')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  async function transactionCount() {
    const result = await env.database.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(result.n);
  }

  async function transaction(id: string) {
    return env.database.db
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  /** Moves a collection's deployment as a settled transaction would (no chain here). */
  async function markDeployed(id: string, fields: { abi?: Abi; capabilities?: string[] } = {}) {
    const abi = fields.abi ?? (flexible721.abi as Abi);
    await env.database.db
      .updateTable('collections')
      .set({
        deployment_type: 'PLATFORM',
        deployment_status: 'SUCCESS',
        network_id: NETWORK,
        token_type: 'ERC721',
        symbol: 'DEP',
        token_id_assignment_strategy: 'AUTOMATIC',
        abi: JSON.stringify(abi),
        contract_address: getAddress(`0x${'ab'.repeat(20)}`),
        capabilities: fields.capabilities ?? capabilitiesOf(abi),
      })
      .where('id', '=', id)
      .execute();
  }

  describe('POST /v1/collections', () => {
    it('creates an INSTANT collection with the defaults: shown, not editable, functions off, no royalty, no deployment', async () => {
      const response = await create({ name: 'Plain' });
      assert.equal(response.statusCode, 201, response.body);
      const collection = response.json();
      assert.deepEqual(Object.keys(collection).sort(), [
        'created_at',
        'default_item_type_id',
        'deployment',
        'editable_metadata',
        'functions_enabled',
        'id',
        'image_url',
        'name',
        'organization_id',
        'preview_metadata',
        'reveal_hidden',
        'reveal_strategy',
        'royalty_info',
        'updated_at',
      ]);
      assert.equal(collection.name, 'Plain');
      assert.equal(collection.organization_id, orgId);
      assert.equal(collection.reveal_strategy, 'INSTANT');
      assert.equal(collection.reveal_hidden, false);
      assert.equal(collection.editable_metadata, false);
      assert.equal(collection.functions_enabled, false);
      assert.equal(collection.royalty_info, null);
      assert.equal(collection.preview_metadata, null);
      assert.equal(collection.default_item_type_id, null);
      assert.equal(collection.image_url, null);
      assert.equal(collection.deployment, null);
      assert.match(collection.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.deepEqual(await get(collection.id), collection);
    });

    it('creates a DELAYED collection hidden until revealed, with its preview metadata and the other fields given', async () => {
      const collection = await created({
        reveal_strategy: 'DELAYED',
        preview_metadata: PREVIEW,
        editable_metadata: true,
        image_url: 'https://img.test/cover.png',
        default_item_type_id: itemTypeId,
      });
      assert.equal(collection.reveal_hidden, true);
      assert.deepEqual(collection.preview_metadata, PREVIEW);
      assert.equal(collection.editable_metadata, true);
      assert.equal(collection.image_url, 'https://img.test/cover.png');
      assert.equal(collection.default_item_type_id, itemTypeId);
    });

    it('answers 400 PREVIEW_METADATA_REQUIRED to a DELAYED collection without preview metadata, creating nothing', async () => {
      const name = uniqueName();
      for (const body of [
        { name, reveal_strategy: 'DELAYED' },
        { name, reveal_strategy: 'DELAYED', preview_metadata: null },
      ])
        assertError(await create(body), 400, 'PREVIEW_METADATA_REQUIRED', { fields: ['/preview_metadata'] });
      await created({ name });
    });

    it('refuses preview metadata on an INSTANT collection (400), which never shows it', async () => {
      assertError(await create({ name: uniqueName(), preview_metadata: PREVIEW }), 400, 'VALIDATION_FAILED', {
        fields: ['/preview_metadata'],
      });
    });

    it('keeps names unique within the organization (409 ALREADY_EXISTS), not across organizations', async () => {
      const name = uniqueName('Unique');
      await created({ name });
      assertError(await create({ name }), 409, 'ALREADY_EXISTS');
      const elsewhere = await created({ name }, stranger.token);
      assert.equal(elsewhere.name, name);
    });

    it('lets exactly one of two concurrent creates with one name through', async () => {
      const name = uniqueName('Race');
      const responses = await Promise.all([create({ name }), create({ name }), create({ name })]);
      assert.deepEqual(responses.map((r) => r.statusCode).sort(), [201, 409, 409]);
    });

    it('refuses a default item type of another organization or none (400 on the field)', async () => {
      for (const id of [strangerItemTypeId, uuidv7()])
        assertError(
          await create({ name: uniqueName(), default_item_type_id: id }),
          400,
          'VALIDATION_FAILED',
          { fields: ['/default_item_type_id'] },
        );
    });

    it('answers 400 to unknown fields, a missing or empty name and a bad reveal strategy', async () => {
      for (const body of [
        { name: uniqueName(), royalty_info: null },
        { name: uniqueName(), colour: 'red' },
        {},
        { name: '' },
        { name: uniqueName(), reveal_strategy: 'LATER' },
      ])
        assertError(await create(body), 400, 'VALIDATION_FAILED');
    });

    it('creates and deploys in one request: a PENDING platform deployment whose DEPLOY transaction carries the constructor', async () => {
      const response = await create({
        name: 'Deployed at once',
        deployment_request: platformRequest({}, { max_supply: '500' }),
      });
      assert.equal(response.statusCode, 201, response.body);
      const collection = response.json();
      const deployment = collection.deployment;
      assert.deepEqual(
        { ...deployment, transaction_id: typeof deployment.transaction_id },
        {
          type: 'PLATFORM',
          status: 'PENDING',
          address: null,
          capabilities: [],
          network_id: NETWORK,
          symbol: 'FIX',
          token_id_assignment_strategy: 'AUTOMATIC',
          token_type: 'ERC721',
          transaction_id: 'string',
          failure_reason: null,
        },
      );
      const tx = await transaction(deployment.transaction_id);
      const wallet = await organizationWalletOf(env.database.db, orgId);
      assert.equal(tx.type, 'DEPLOY');
      assert.equal(tx.state, 'PENDING');
      assert.equal(tx.to_address, null);
      assert.equal(tx.from_address, wallet.address);
      assert.equal(tx.network_id, NETWORK);
      const { args } = decodeDeployData({
        abi: flexible721.abi,
        bytecode: flexible721.bytecode,
        data: tx.data as Hex,
      });
      assert.deepEqual(args, [
        'Deployed at once',
        'FIX',
        `http://tokens.test/v1/metadata/${collection.id}/`,
        `http://tokens.test/v1/metadata/${collection.id}`,
        wallet.address,
        500n,
        zeroAddress,
        0n,
      ]);
      const stored = await row(collection.id);
      assert.equal(stored.platform_variant, 'FlexibleERC721');
      assert.equal(stored.max_supply, '500');
    });

    it('creates nothing when the deployment request is invalid (paths under /deployment_request)', async () => {
      const name = uniqueName();
      const before = await transactionCount();
      assertError(
        await create({ name, deployment_request: platformRequest({ network_id: OTHER_NETWORK }) }),
        400,
        'VALIDATION_FAILED',
        { fields: ['/deployment_request/network_id'] },
      );
      assertError(
        await create({
          name,
          deployment_request: customRequest({
            abi: flexible721.abi,
            bytecode: flexible721.bytecode,
            constructor_args: [],
          }),
        }),
        400,
        'VALIDATION_FAILED',
        { fields: ['/deployment_request/custom/constructor_args'] },
      );
      assertError(
        await create({
          name,
          deployment_request: customRequest({
            abi: MockERC20Abi,
            bytecode: mockErc20.bytecode,
            constructor_args: ['T', 'T', 6],
          }),
        }),
        422,
        'MISSING_TOKEN_CAPABILITY',
      );
      assert.equal(await transactionCount(), before);
      await created({ name });
    });
  });

  describe('GET /v1/collections/{collection_id}', () => {
    it("answers 404 NOT_FOUND for another organization's collection and unknown ids", async () => {
      const collection = await created();
      for (const [id, token] of [
        [collection.id, stranger.token],
        [uuidv7(), admin.token],
      ] as const) {
        assertError(await env.call('GET', `/v1/collections/${id}`, { token }), 404, 'NOT_FOUND');
        assertError(await edit(id, { name: uniqueName() }, token), 404, 'NOT_FOUND');
        assertError(await requestDeployment(id, platformRequest(), token), 404, 'NOT_FOUND');
        assertError(
          await env.call('GET', `/v1/collections/${id}/deployment-request`, { token }),
          404,
          'NOT_FOUND',
        );
      }
      assert.equal((await row(collection.id)).deployment_status, null);
      assert.equal((await get(collection.id, env.platformAdmin.token)).id, collection.id);
      assert.equal((await get(collection.id, member.token)).id, collection.id);
    });
  });

  describe('PATCH /v1/collections/{collection_id}', () => {
    it('changes only the attributes present', async () => {
      const collection = await created({
        reveal_strategy: 'DELAYED',
        preview_metadata: PREVIEW,
        image_url: 'https://img.test/a.png',
      });
      const response = await edit(collection.id, { functions_enabled: true });
      assert.equal(response.statusCode, 200, response.body);
      const edited = response.json();
      assert.equal(edited.functions_enabled, true);
      assert.deepEqual(
        { ...edited, functions_enabled: false, updated_at: null },
        { ...collection, updated_at: null },
      );
      const renamed = await edit(collection.id, {
        name: 'Renamed',
        image_url: null,
        default_item_type_id: itemTypeId,
        preview_metadata: { name: 'Other' },
      });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.equal(renamed.json().name, 'Renamed');
      assert.equal(renamed.json().image_url, null);
      assert.equal(renamed.json().default_item_type_id, itemTypeId);
      assert.deepEqual(renamed.json().preview_metadata, { name: 'Other' });
      assert.equal(renamed.json().functions_enabled, true);
      const cleared = await edit(collection.id, { default_item_type_id: null });
      assert.equal(cleared.json().default_item_type_id, null);
      const empty = await edit(collection.id, {});
      assert.equal(empty.statusCode, 200, empty.body);
      assert.deepEqual(empty.json(), cleared.json());
    });

    it('answers 409 ALREADY_EXISTS to a name in use in the organization; its own name is fine', async () => {
      const first = await created();
      const second = await created();
      assertError(await edit(second.id, { name: first.name }), 409, 'ALREADY_EXISTS');
      assert.equal((await get(second.id)).name, second.name);
      assert.equal((await edit(second.id, { name: second.name })).statusCode, 200);
    });

    it('reveals a DELAYED collection once: reveal_hidden true → false, never back (409 INVALID_STATE)', async () => {
      const collection = await created({ reveal_strategy: 'DELAYED', preview_metadata: PREVIEW });
      assert.equal((await edit(collection.id, { reveal_hidden: true })).statusCode, 200, 'same value: no-op');
      const revealed = await edit(collection.id, { reveal_hidden: false });
      assert.equal(revealed.statusCode, 200, revealed.body);
      assert.equal(revealed.json().reveal_hidden, false);
      assertError(await edit(collection.id, { reveal_hidden: true }), 409, 'INVALID_STATE');
      assert.equal((await get(collection.id)).reveal_hidden, false);
      assert.equal(
        (await edit(collection.id, { reveal_hidden: false })).statusCode,
        200,
        'same value: no-op',
      );
    });

    it('never hides an INSTANT collection (409 INVALID_STATE); sending false changes nothing', async () => {
      const collection = await created();
      assertError(await edit(collection.id, { reveal_hidden: true }), 409, 'INVALID_STATE');
      assert.equal((await edit(collection.id, { reveal_hidden: false })).statusCode, 200);
      assert.equal((await get(collection.id)).reveal_hidden, false);
    });

    it('turns editable_metadata off for good: true → false, never back (409 INVALID_STATE)', async () => {
      const collection = await created({ editable_metadata: true });
      assert.equal(
        (await edit(collection.id, { editable_metadata: true })).statusCode,
        200,
        'same value: no-op',
      );
      assert.equal((await edit(collection.id, { editable_metadata: false })).json().editable_metadata, false);
      assertError(await edit(collection.id, { editable_metadata: true }), 409, 'INVALID_STATE');
      const neverEditable = await created();
      assertError(await edit(neverEditable.id, { editable_metadata: true }), 409, 'INVALID_STATE');
    });

    it('lets exactly one of two concurrent renames to one name through', async () => {
      const [first, second] = [await created(), await created()];
      const name = uniqueName('Contested');
      const responses = await Promise.all([edit(first.id, { name }), edit(second.id, { name })]);
      assert.deepEqual(responses.map((r) => r.statusCode).sort(), [200, 409]);
      const names = [(await get(first.id)).name, (await get(second.id)).name];
      assert.equal(names.filter((n) => n === name).length, 1);
    });

    it('keeps the preview of a DELAYED collection (400 PREVIEW_METADATA_REQUIRED) and refuses one on INSTANT', async () => {
      const delayed = await created({ reveal_strategy: 'DELAYED', preview_metadata: PREVIEW });
      assertError(await edit(delayed.id, { preview_metadata: null }), 400, 'PREVIEW_METADATA_REQUIRED', {
        fields: ['/preview_metadata'],
      });
      assert.deepEqual((await get(delayed.id)).preview_metadata, PREVIEW);
      const instant = await created();
      assertError(await edit(instant.id, { preview_metadata: PREVIEW }), 400, 'VALIDATION_FAILED', {
        fields: ['/preview_metadata'],
      });
      assert.equal((await edit(instant.id, { preview_metadata: null })).statusCode, 200);
    });

    it('changes nothing when one attribute of the request fails', async () => {
      const collection = await created({ editable_metadata: true });
      assertError(
        await edit(collection.id, { name: uniqueName(), editable_metadata: false, reveal_hidden: true }),
        409,
        'INVALID_STATE',
      );
      assertError(
        await edit(collection.id, {
          image_url: 'https://x.test/y.png',
          default_item_type_id: strangerItemTypeId,
        }),
        400,
        'VALIDATION_FAILED',
        { fields: ['/default_item_type_id'] },
      );
      const after = await get(collection.id);
      assert.equal(after.name, collection.name);
      assert.equal(after.editable_metadata, true);
      assert.equal(after.image_url, null);
      assert.equal(after.updated_at, collection.updated_at);
    });

    it('stores royalty_info before deployment, checksummed, without any transaction; null clears it', async () => {
      const collection = await created();
      const before = await transactionCount();
      const response = await edit(collection.id, {
        royalty_info: { receiver: RECEIVER.toLowerCase(), amount_bps: 750 },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().royalty_info, { receiver: RECEIVER, amount_bps: 750 });
      assert.equal((await edit(collection.id, { royalty_info: null })).json().royalty_info, null);
      assert.equal(await transactionCount(), before);
    });

    it('uses royalty_info in the platform constructor when the collection is deployed later', async () => {
      const collection = await created();
      await edit(collection.id, { royalty_info: { receiver: RECEIVER, amount_bps: 250 } });
      const response = await requestDeployment(collection.id, platformRequest());
      assert.equal(response.statusCode, 200, response.body);
      const tx = await transaction(response.json().transaction_id);
      const { args } = decodeDeployData({
        abi: flexible721.abi,
        bytecode: flexible721.bytecode,
        data: tx.data as Hex,
      });
      assert.deepEqual(args?.slice(6), [RECEIVER, 250n]);
    });

    it('answers 400 to a bad royalty: zero or mis-checksummed receiver, amount_bps out of 0..10000', async () => {
      const collection = await created();
      const bad = badChecksum(RECEIVER);
      for (const [royalty, path] of [
        [{ receiver: zeroAddress, amount_bps: 100 }, '/royalty_info/receiver'],
        [{ receiver: bad, amount_bps: 100 }, '/royalty_info/receiver'],
        [{ receiver: RECEIVER, amount_bps: 10_001 }, '/royalty_info/amount_bps'],
        [{ receiver: RECEIVER, amount_bps: -1 }, '/royalty_info/amount_bps'],
        [{ receiver: RECEIVER }, '/royalty_info'],
      ] as const) {
        const response = await edit(collection.id, { royalty_info: royalty });
        assertError(response, 400, 'VALIDATION_FAILED');
        assert.ok(
          response.json().error.fields.some((f: { path: string }) => f.path.startsWith(path)),
          response.body,
        );
      }
      assert.equal((await get(collection.id)).royalty_info, null);
    });

    it('refuses a royalty change while the deployment is PENDING (its constructor is fixed: 409)', async () => {
      const collection = await created({ deployment_request: platformRequest() });
      assertError(
        await edit(collection.id, { royalty_info: { receiver: RECEIVER, amount_bps: 100 } }),
        409,
        'INVALID_STATE',
      );
      assert.equal((await edit(collection.id, { royalty_info: null })).statusCode, 200, 'same value: no-op');
    });

    it('queues a ROYALTY_UPDATE on a deployed contract with CONTRACT_ROYALTY: setDefaultRoyalty, then deleteDefaultRoyalty for null', async () => {
      const collection = await created();
      await markDeployed(collection.id);
      const royaltyAbi = parseAbi([
        'function setDefaultRoyalty(address receiver, uint96 feeNumerator)',
        'function deleteDefaultRoyalty()',
      ]);
      const queued = async () =>
        env.database.db
          .selectFrom('transactions')
          .selectAll()
          .where('type', '=', 'ROYALTY_UPDATE')
          .where('to_address', '=', getAddress(`0x${'ab'.repeat(20)}`))
          .orderBy('id')
          .execute();
      const set = await edit(collection.id, { royalty_info: { receiver: RECEIVER, amount_bps: 500 } });
      assert.equal(set.statusCode, 200, set.body);
      assert.equal(
        (await edit(collection.id, { royalty_info: { receiver: RECEIVER, amount_bps: 500 } })).statusCode,
        200,
      );
      const cleared = await edit(collection.id, { royalty_info: null });
      assert.equal(cleared.statusCode, 200, cleared.body);
      const rows = await queued();
      assert.equal(rows.length, 2, 'the unchanged royalty sends nothing');
      assert.deepEqual(decodeFunctionData({ abi: royaltyAbi, data: rows[0]!.data as Hex }), {
        functionName: 'setDefaultRoyalty',
        args: [RECEIVER, 500n],
      });
      assert.equal(
        decodeFunctionData({ abi: royaltyAbi, data: rows[1]!.data as Hex }).functionName,
        'deleteDefaultRoyalty',
      );
      assert.equal(rows[0]!.network_id, NETWORK);
      assert.equal(rows[0]!.state, 'PENDING');
    });

    it('cannot clear the royalty of a contract without deleteDefaultRoyalty (409); without CONTRACT_ROYALTY it is only stored', async () => {
      const noDelete = (flexible721.abi as Abi).filter(
        (item) => !(item.type === 'function' && item.name === 'deleteDefaultRoyalty'),
      );
      const collection = await created();
      await markDeployed(collection.id, { abi: noDelete });
      assert.equal(
        (await edit(collection.id, { royalty_info: { receiver: RECEIVER, amount_bps: 1 } })).statusCode,
        200,
      );
      assertError(await edit(collection.id, { royalty_info: null }), 409, 'INVALID_STATE');
      assert.deepEqual((await get(collection.id)).royalty_info, { receiver: RECEIVER, amount_bps: 1 });

      const before = await transactionCount();
      const plain = await created();
      await markDeployed(plain.id, { capabilities: ['ERC721', 'ADMIN_MINT_SINGLE'] });
      const response = await edit(plain.id, { royalty_info: { receiver: RECEIVER, amount_bps: 1 } });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(await transactionCount(), before);
    });
  });

  describe('deployment requests', () => {
    it('answers 404 to GET deployment-request before any request, then PENDING with the transaction', async () => {
      const collection = await created();
      const path = `/v1/collections/${collection.id}/deployment-request`;
      assertError(await env.call('GET', path, { token: member.token }), 404, 'NOT_FOUND');
      const response = await requestDeployment(
        collection.id,
        platformRequest({ token_id_assignment_strategy: null }),
      );
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.status, 'PENDING');
      assert.equal((await transaction(body.transaction_id)).type, 'DEPLOY');
      const status = await env.call('GET', path, { token: member.token });
      assert.equal(status.statusCode, 200, status.body);
      assert.deepEqual(status.json(), {
        status: 'PENDING',
        transaction_id: body.transaction_id,
        failure_reason: null,
      });
      const deployment = (await get(collection.id)).deployment;
      assert.equal(deployment.token_id_assignment_strategy, 'AUTOMATIC');
      assert.equal(deployment.transaction_id, body.transaction_id);
    });

    it('takes one deployment at a time: 409 INVALID_STATE while PENDING or after SUCCESS, a new one after FAILED', async () => {
      const collection = await created({ deployment_request: platformRequest() });
      const first = collection.deployment.transaction_id;
      assertError(await requestDeployment(collection.id, platformRequest()), 409, 'INVALID_STATE');
      await env.database.db
        .updateTable('collections')
        .set({ deployment_status: 'FAILED', deployment_failure_reason: 'reverted on chain' })
        .where('id', '=', collection.id)
        .execute();
      const again = await requestDeployment(
        collection.id,
        platformRequest({}, { variant: 'FlexibleERC1155', symbol: 'TWO' }),
      );
      assert.equal(again.statusCode, 200, again.body);
      assert.notEqual(again.json().transaction_id, first);
      const deployment = (await get(collection.id)).deployment;
      assert.equal(deployment.token_type, 'ERC1155');
      assert.equal(deployment.symbol, 'TWO');
      assert.equal(deployment.failure_reason, null);
      assert.equal(deployment.status, 'PENDING');
      await markDeployed(collection.id);
      assertError(await requestDeployment(collection.id, platformRequest()), 409, 'INVALID_STATE');
    });

    it('wants exactly the object named by type (400 on each wrong one)', async () => {
      const collection = await created();
      const custom = {
        abi: flexible721.abi,
        bytecode: flexible721.bytecode,
        constructor_args: PLATFORM_ARGS,
      };
      for (const [body, paths] of [
        [{ type: 'PLATFORM', network_id: NETWORK }, ['/platform']],
        [{ type: 'PLATFORM', network_id: NETWORK, platform: null }, ['/platform']],
        [{ ...platformRequest(), custom }, ['/custom']],
        [
          { type: 'CUSTOM', network_id: NETWORK, platform: platformRequest().platform },
          ['/platform', '/custom'],
        ],
        [{ type: 'EXTERNAL', network_id: NETWORK, custom }, ['/custom', '/external']],
      ] as const)
        assertError(await requestDeployment(collection.id, body), 400, 'VALIDATION_FAILED', {
          fields: [...paths],
        });
      for (const body of [
        { network_id: NETWORK, platform: platformRequest().platform },
        { ...platformRequest(), network_id: 'one' },
        platformRequest({}, { variant: 'ERC20' }),
        platformRequest({}, { symbol: '' }),
        platformRequest({}, { max_supply: '-1' }),
        platformRequest({ extra: true }),
      ])
        assertError(await requestDeployment(collection.id, body), 400, 'VALIDATION_FAILED');
      assert.equal((await get(collection.id)).deployment, null);
    });

    it("needs a registered, enabled network among the organization's network_ids (400 on /network_id)", async () => {
      const collection = await created();
      const before = await transactionCount();
      for (const networkId of [OTHER_NETWORK, DISABLED_NETWORK, 424242])
        assertError(
          await requestDeployment(collection.id, platformRequest({ network_id: networkId })),
          400,
          'VALIDATION_FAILED',
          { fields: ['/network_id'] },
        );
      assert.equal(await transactionCount(), before);
      assert.equal((await get(collection.id)).deployment, null);
    });

    it('checks max_supply and owner of a platform deployment, and stores the owner', async () => {
      const collection = await created();
      for (const [platform, path] of [
        [{ max_supply: (2n ** 256n).toString() }, '/platform/max_supply'],
        [{ owner: badChecksum(RECEIVER) }, '/platform/owner'],
        [{ owner: zeroAddress }, '/platform/owner'],
      ] as const)
        assertError(
          await requestDeployment(collection.id, platformRequest({}, platform)),
          400,
          'VALIDATION_FAILED',
          { fields: [path] },
        );
      const response = await requestDeployment(
        collection.id,
        platformRequest({}, { owner: RECEIVER.toLowerCase(), max_supply: (2n ** 256n - 1n).toString() }),
      );
      assert.equal(response.statusCode, 200, response.body);
      const stored = await row(collection.id);
      assert.equal(stored.owner_address, RECEIVER);
      assert.equal(stored.max_supply, (2n ** 256n - 1n).toString());
    });

    it('deploys a CUSTOM contract as given: the encoded constructor, its ABI and token type', async () => {
      const collection = await created();
      const response = await requestDeployment(
        collection.id,
        customRequest({
          abi: flexible721.abi,
          bytecode: flexible721.bytecode,
          constructor_args: PLATFORM_ARGS,
        }),
      );
      assert.equal(response.statusCode, 200, response.body);
      const tx = await transaction(response.json().transaction_id);
      const { args } = decodeDeployData({
        abi: flexible721.abi,
        bytecode: flexible721.bytecode,
        data: tx.data as Hex,
      });
      assert.deepEqual(args, [
        'Custom',
        'CST',
        'https://c.test/',
        'https://c.test/c',
        RECEIVER,
        0n,
        zeroAddress,
        0n,
      ]);
      const deployment = (await get(collection.id)).deployment;
      assert.equal(deployment.type, 'CUSTOM');
      assert.equal(deployment.token_type, 'ERC721');
      assert.equal(deployment.symbol, '', 'read from the contract once deployed');
      const stored = await row(collection.id);
      assert.equal((stored.abi as Abi).length, flexible721.abi.length);
      assert.equal(stored.platform_variant, null);
    });

    it('refuses CUSTOM contracts without the token standard asked for (422 MISSING_TOKEN_CAPABILITY)', async () => {
      const collection = await created();
      assertError(
        await requestDeployment(
          collection.id,
          customRequest({ abi: MockERC20Abi, bytecode: mockErc20.bytecode, constructor_args: ['T', 'T', 6] }),
        ),
        422,
        'MISSING_TOKEN_CAPABILITY',
      );
      assertError(
        await requestDeployment(
          collection.id,
          customRequest({
            abi: flexible721.abi,
            bytecode: flexible721.bytecode,
            constructor_args: PLATFORM_ARGS,
            token_type: 'ERC1155',
          }),
        ),
        422,
        'MISSING_TOKEN_CAPABILITY',
      );
      assert.equal((await get(collection.id)).deployment, null);
    });

    it('wants the token_type of a CUSTOM contract that is both ERC721 and ERC1155', async () => {
      const both = [
        ...(flexible721.abi as Abi),
        ...capabilityDefinition('ERC1155').abi.filter(
          (f) => f.name !== 'setApprovalForAll' && f.name !== 'isApprovedForAll',
        ),
      ];
      const custom = { abi: both, bytecode: flexible721.bytecode, constructor_args: PLATFORM_ARGS };
      const collection = await created();
      assertError(await requestDeployment(collection.id, customRequest(custom)), 400, 'VALIDATION_FAILED', {
        fields: ['/custom/token_type'],
      });
      const response = await requestDeployment(
        collection.id,
        customRequest({ ...custom, token_type: 'ERC1155' }),
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.equal((await get(collection.id)).deployment.token_type, 'ERC1155');
    });

    it('gives EXTERNAL token ids to ERC721 contracts with ADMIN_MINT_MULTIPLE_NO_ID only (400 / 422 MISSING_MINT_CAPABILITY)', async () => {
      const collection = await created();
      assertError(
        await requestDeployment(
          collection.id,
          platformRequest({ token_id_assignment_strategy: 'EXTERNAL' }, { variant: 'FrozenERC1155' }),
        ),
        400,
        'VALIDATION_FAILED',
        { fields: ['/token_id_assignment_strategy'] },
      );
      const noIdless = (flexible721.abi as Abi).filter(
        (item) => !(item.type === 'function' && item.name === 'mintBatchNoId'),
      );
      assertError(
        await requestDeployment(
          collection.id,
          customRequest(
            { abi: noIdless, bytecode: flexible721.bytecode, constructor_args: PLATFORM_ARGS },
            { token_id_assignment_strategy: 'EXTERNAL' },
          ),
        ),
        422,
        'MISSING_MINT_CAPABILITY',
      );
      assert.equal((await get(collection.id)).deployment, null);
      const response = await requestDeployment(
        collection.id,
        platformRequest({ token_id_assignment_strategy: 'EXTERNAL' }),
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.equal((await get(collection.id)).deployment.token_id_assignment_strategy, 'EXTERNAL');
    });

    it('answers 502 UPSTREAM_FAILED when the node does not answer for an EXTERNAL contract, changing nothing', async () => {
      const collection = await created();
      const response = await requestDeployment(collection.id, {
        type: 'EXTERNAL',
        network_id: NETWORK,
        external: { address: RECEIVER, token_type: 'ERC721' },
      });
      assertError(response, 502, 'UPSTREAM_FAILED');
      assert.equal((await get(collection.id)).deployment, null);
    });

    it('answers 400 to a mis-checksummed EXTERNAL address or an invalid ABI, before reading the chain', async () => {
      const collection = await created();
      const external = { address: badChecksum(RECEIVER), token_type: 'ERC721' };
      assertError(
        await requestDeployment(collection.id, { type: 'EXTERNAL', network_id: NETWORK, external }),
        400,
        'VALIDATION_FAILED',
        { fields: ['/external/address'] },
      );
      assertError(
        await requestDeployment(collection.id, {
          type: 'EXTERNAL',
          network_id: NETWORK,
          external: {
            address: RECEIVER,
            token_type: 'ERC721',
            abi: [{ type: 'function', name: 'x', inputs: [{ type: 'uint7' }] }],
          },
        }),
        400,
        'VALIDATION_FAILED',
      );
    });
  });

  describe('deployment settlement (the DEPLOY handler)', () => {
    let nonce = 1000;
    const settle = async (transactionId: string) => {
      await settleTransaction(env.database.db, env.ctx, transactionId);
    };

    it('moves a PENDING deployment to SUCCESS with the checksummed address and the capabilities of its ABI, once', async () => {
      const collection = await created({ deployment_request: platformRequest() });
      const txId = collection.deployment.transaction_id;
      const address = `0x${'cd'.repeat(20)}`;
      await env.database.db
        .updateTable('transactions')
        .set({ ...completedTransactionColumns(nonce++, 'SUCCESS'), contract_address: address })
        .where('id', '=', txId)
        .execute();
      await settle(txId);
      const deployment = (await get(collection.id)).deployment;
      assert.equal(deployment.status, 'SUCCESS');
      assert.equal(deployment.address, getAddress(address));
      assert.deepEqual(deployment.capabilities, capabilitiesOf(flexible721.abi as Abi));
      assert.equal(deployment.symbol, 'FIX');
      const capabilities = await env.call('GET', `/v1/public/collections/${collection.id}/capabilities`);
      assert.equal(capabilities.statusCode, 200, capabilities.body);
      assert.deepEqual(capabilities.json(), { capabilities: deployment.capabilities });

      // A retried job, even with another outcome, changes nothing any more.
      await env.database.db
        .updateTable('transactions')
        .set({ on_chain_status: 'FAILURE' })
        .where('id', '=', txId)
        .execute();
      await settle(txId);
      assert.equal((await get(collection.id)).deployment.status, 'SUCCESS');
    });

    it('moves it to FAILED with the reason when the transaction reverted or was cancelled', async () => {
      const reverted = await created({ deployment_request: platformRequest() });
      const cancelled = await created({ deployment_request: platformRequest() });
      await env.database.db
        .updateTable('transactions')
        .set(completedTransactionColumns(nonce++, 'FAILURE'))
        .where('id', '=', reverted.deployment.transaction_id)
        .execute();
      await env.database.db
        .updateTable('transactions')
        .set({ state: 'CANCELLED', failure_reason: 'reverted: InvalidAdmin()', completed_at: new Date() })
        .where('id', '=', cancelled.deployment.transaction_id)
        .execute();
      await settle(reverted.deployment.transaction_id);
      await settle(cancelled.deployment.transaction_id);
      for (const [collection, reason] of [
        [reverted, 'reverted on chain'],
        [cancelled, 'reverted: InvalidAdmin()'],
      ] as const) {
        const status = await env.call('GET', `/v1/collections/${collection.id}/deployment-request`, {
          token: admin.token,
        });
        assert.deepEqual(status.json(), {
          status: 'FAILED',
          transaction_id: collection.deployment.transaction_id,
          failure_reason: reason,
        });
        const deployment = (await get(collection.id)).deployment;
        assert.equal(deployment.address, null);
        assert.deepEqual(deployment.capabilities, []);
      }
    });

    it('ignores DEPLOY transactions that are no collection deployment', async () => {
      const row = await insertTransaction(env.database.db, orgId, {
        network_id: NETWORK,
        type: 'DEPLOY',
        to_address: null,
        ...completedTransactionColumns(nonce++, 'SUCCESS'),
        contract_address: `0x${'ef'.repeat(20)}`,
      });
      await settle(row.id);
      const stillPending = await created({ deployment_request: platformRequest() });
      assert.equal((await get(stillPending.id)).deployment.status, 'PENDING');
    });
  });

  describe('GET /v1/public/collections/{collection_id}/capabilities', () => {
    it('answers without credentials: [] until deployed, 404 for unknown ids', async () => {
      const collection = await created({ deployment_request: platformRequest() });
      const response = await env.call('GET', `/v1/public/collections/${collection.id}/capabilities`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { capabilities: [] });
      assertError(await env.call('GET', `/v1/public/collections/${uuidv7()}/capabilities`), 404, 'NOT_FOUND');
      assertError(
        await env.call('GET', '/v1/public/collections/nope/capabilities'),
        400,
        'VALIDATION_FAILED',
      );
    });
  });
});

/** GET /v1/collections: filters, order by name, keyset cursors (docs/api.md#pagination). */
describe('GET /v1/collections', () => {
  let env: TestEnv;
  let admin: Actor;
  let stranger: Actor;
  const ids: Record<string, string> = {};
  const ADDRESS = getAddress(`0x${'1f'.repeat(20)}`);

  before(async () => {
    env = await setupTest();
    await env.insertNetwork(NETWORK);
    await env.insertNetwork(OTHER_NETWORK);
    const org = await env.createOrganization();
    const other = await env.createOrganization();
    admin = await env.createUser(org.id, 'ORG_ADMIN');
    stranger = await env.createUser(other.id, 'ORG_ADMIN');
    for (const name of ['delta', 'Alpha', 'charlie', 'bravo', 'echo']) {
      const response = await env.call('POST', '/v1/collections', { token: admin.token, body: { name } });
      assert.equal(response.statusCode, 201, response.body);
      ids[name] = response.json().id;
    }
    const response = await env.call('POST', '/v1/collections', {
      token: stranger.token,
      body: { name: 'foxtrot' },
    });
    ids.foxtrot = response.json().id;
    const deployed = (id: string, fields: object) =>
      env.database.db
        .updateTable('collections')
        .set({
          deployment_type: 'EXTERNAL',
          deployment_status: 'SUCCESS',
          token_id_assignment_strategy: 'AUTOMATIC',
          ...fields,
        })
        .where('id', '=', id)
        .execute();
    await deployed(ids.bravo!, { network_id: NETWORK, token_type: 'ERC721', contract_address: ADDRESS });
    await deployed(ids.charlie!, {
      network_id: OTHER_NETWORK,
      token_type: 'ERC1155',
      contract_address: ADDRESS,
    });
    await deployed(ids.delta!, {
      network_id: NETWORK,
      token_type: 'ERC1155',
      contract_address: getAddress(`0x${'2e'.repeat(20)}`),
    });
  });
  after(() => env.close());

  async function list(query: Record<string, string> = {}, token = admin.token) {
    const response = await env.call('GET', '/v1/collections', { token, query });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as {
      results: { id: string; name: string }[];
      cursor: string | null;
      has_more: boolean;
      total_results: number;
    };
  }
  const names = async (query: Record<string, string> = {}, token = admin.token) =>
    (await list(query, token)).results.map((c) => c.name);

  it("lists the organization's collections ordered by name, ties by id; ASC by default, DESC on request", async () => {
    const ascending = await names();
    assert.deepEqual(ascending, ['Alpha', 'bravo', 'charlie', 'delta', 'echo']);
    assert.deepEqual(await names({ order_by: 'NAME', order_direction: 'DESC' }), [...ascending].reverse());
    const page = await list();
    assert.equal(page.total_results, 5);
    assert.equal(page.has_more, false);
    assert.equal(page.cursor, null);
  });

  it('pages with keyset cursors, never repeating or skipping, and refuses a cursor with other filters', async () => {
    const all = await names();
    for (const direction of ['ASC', 'DESC']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof list>> = await list({
          limit: '2',
          order_direction: direction,
          ...(cursor && { cursor }),
        });
        assert.equal(page.total_results, 5);
        seen.push(...page.results.map((c) => c.name));
        cursor = page.cursor;
      } while (cursor);
      assert.deepEqual(seen, direction === 'ASC' ? all : [...all].reverse());
    }
    const first = await list({ limit: '2' });
    const reused = await env.call('GET', '/v1/collections', {
      token: admin.token,
      query: { limit: '2', cursor: first.cursor!, token_type: 'ERC721' },
    });
    assertError(reused, 400, 'INVALID_CURSOR');
  });

  it('filters by exact name, contract address in any case, token type and network', async () => {
    assert.deepEqual(await names({ name: 'bravo' }), ['bravo']);
    assert.deepEqual(await names({ name: 'Bravo' }), []);
    assert.deepEqual(await names({ contract_address: ADDRESS.toLowerCase() }), ['bravo', 'charlie']);
    assert.deepEqual(await names({ contract_address: ADDRESS }), ['bravo', 'charlie']);
    assert.deepEqual(await names({ token_type: 'ERC1155' }), ['charlie', 'delta']);
    assert.deepEqual(await names({ network_id: String(NETWORK) }), ['bravo', 'delta']);
    assert.deepEqual(await names({ network_id: String(NETWORK), token_type: 'ERC1155' }), ['delta']);
    assert.equal((await list({ token_type: 'ERC1155' })).total_results, 2);
  });

  it("shows platform admins every organization's collections, others only their own", async () => {
    assert.deepEqual(await names({}, stranger.token), ['foxtrot']);
    const all = await list({}, env.platformAdmin.token);
    assert.ok(all.results.some((c) => c.id === ids.foxtrot));
    assert.ok(all.results.some((c) => c.id === ids.bravo));
  });

  it('answers 400 to a mis-checksummed address, an unknown token type, order or parameter', async () => {
    for (const query of <Record<string, string>[]>[
      { contract_address: ADDRESS.slice(0, 41) },
      { contract_address: badChecksum(ADDRESS) },
      { token_type: 'ERC20' },
      { order_by: 'CREATED_AT' },
      { limit: '101' },
      { colour: 'red' },
    ]) {
      const response = await env.call('GET', '/v1/collections', { token: admin.token, query });
      assertError(response, 400, 'VALIDATION_FAILED');
    }
  });
});
