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
import { assertError } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import {
  badChecksum,
  collectionCalls,
  flexible721,
  NETWORK,
  PREVIEW,
  platformRequest,
  RECEIVER,
  seedCollections,
} from './collections.test-setup.ts';

/**
 * PATCH /v1/collections/{collection_id}: names, reveal, editable metadata, preview and royalty,
 * before and after deployment (creating: collections-create-read.test.ts).
 */
describe('collections', () => {
  let env: TestEnv;
  let admin: Actor;
  let itemTypeId: string;
  let strangerItemTypeId: string;

  before(async () => {
    env = await setupTest();
    ({ admin, itemTypeId, strangerItemTypeId } = await seedCollections(env));
  });
  after(() => env.close());

  const { uniqueName, created, edit, requestDeployment, get, transactionCount, transaction, markDeployed } =
    collectionCalls(() => ({ env, admin }));

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
});
