import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeDeployData, getAddress, type Hex, zeroAddress } from 'viem';
import { MockERC20Abi } from '../../../../../contracts/artifacts/abis.ts';
import mockErc20 from '../../../../../contracts/artifacts/test/MockERC20.json' with { type: 'json' };
import { assertError } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { organizationWalletOf } from '../../../platform/wallets/wallets.service.ts';
import {
  badChecksum,
  collectionCalls,
  customRequest,
  flexible721,
  NETWORK,
  OTHER_NETWORK,
  PREVIEW,
  platformRequest,
  seedCollections,
} from './collections.test-setup.ts';

/**
 * Creating and reading collections: POST /v1/collections (with a deployment request or none),
 * GET one, and the list below (editing: collections-edit.test.ts, deploying: collections-deploy.test.ts).
 */
describe('collections', () => {
  let env: TestEnv;
  let orgId: string;
  let admin: Actor;
  let member: Actor;
  let stranger: Actor;
  let itemTypeId: string;
  let strangerItemTypeId: string;

  before(async () => {
    env = await setupTest();
    ({ orgId, admin, member, stranger, itemTypeId, strangerItemTypeId } = await seedCollections(env));
  });
  after(() => env.close());

  const { uniqueName, create, created, edit, requestDeployment, get, row, transactionCount, transaction } =
    collectionCalls(() => ({ env, admin }));

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
