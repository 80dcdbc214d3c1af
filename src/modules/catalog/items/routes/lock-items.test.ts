import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { assertError } from '../../../../../test/assertions.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import type { TokenIdAssignmentStrategy, TokenType } from '../../../../db/schema.ts';

const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';
const MAX_UINT256 = ((1n << 256n) - 1n).toString();

type Response = LightMyRequestResponse;
interface LockOutput {
  item_id: string;
  max_supply: string;
  token_id: string | null;
}

describe('POST /v1/items/lock', () => {
  let env: TestEnv;
  let orgId: string;
  let admin: Actor;
  let member: Actor;
  let otherAdmin: Actor;
  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    ({ organizationId: orgId, admin, member, stranger: otherAdmin } = await env.createTenant());
  });
  after(() => env.close());

  async function collection(
    tokenType: TokenType = 'ERC721',
    strategy: TokenIdAssignmentStrategy = 'AUTOMATIC',
  ) {
    return (await insertCollection(env.database.db, { organizationId: orgId, tokenType, strategy })).id;
  }
  /** `count` items created in order (one bulk: creation order is the order of the ids). */
  async function items(collectionId: string, count: number): Promise<string[]> {
    const response = await env.call('POST', '/v1/items/bulk', {
      token: admin.token,
      body: {
        items: Array.from({ length: count }, (_, i) => ({ collection_id: collectionId, attributes: { i } })),
      },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().item_ids;
  }
  async function lock(body: object, actor = admin): Promise<Response> {
    return env.call('POST', '/v1/items/lock', { token: actor.token, body });
  }
  async function lockOk(body: object): Promise<LockOutput[]> {
    const response = await lock(body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json().lock_outputs;
  }
  async function stored(ids: string[]) {
    const rows = await env.database.db
      .selectFrom('items')
      .select(['id', 'locked', 'max_supply', 'token_id'])
      .where('id', 'in', ids)
      .execute();
    return ids.map((id) => rows.find((r) => r.id === id)!);
  }
  async function nextTokenId(collectionId: string) {
    const row = await env.database.db
      .selectFrom('collections')
      .select('next_token_id')
      .where('id', '=', collectionId)
      .executeTakeFirstOrThrow();
    return row.next_token_id;
  }

  describe('rule 1: exactly one of item_id, item_ids, collection_id', () => {
    it('answers 400 INVALID_SELECTION for none or several (null counts as absent)', async () => {
      const collectionId = await collection();
      const [itemId] = await items(collectionId, 1);
      for (const body of [
        {},
        { item_id: null, item_ids: null, collection_id: null },
        { item_id: itemId, collection_id: collectionId },
        { item_id: itemId, item_ids: [itemId] },
        { item_ids: [itemId], collection_id: collectionId },
      ]) {
        assertError(await lock(body), 400, 'INVALID_SELECTION');
      }
      assert.equal((await stored([itemId!]))[0]!.locked, false);
      const single = await lockOk({ item_id: itemId, item_ids: null, collection_id: null });
      assert.equal(single[0]!.item_id, itemId);
    });
  });

  describe('rule 2: named items must all be unlocked', () => {
    it('locks one item and a list (ids increasing in creation order, whatever the order given)', async () => {
      const collectionId = await collection();
      const ids = await items(collectionId, 4);
      assert.deepEqual(await lockOk({ item_id: ids[1] }), [
        { item_id: ids[1], max_supply: '1', token_id: '1' },
      ]);
      const outputs = await lockOk({ item_ids: [ids[3], ids[0], ids[2]] });
      assert.deepEqual(outputs, [
        { item_id: ids[0], max_supply: '1', token_id: '2' },
        { item_id: ids[2], max_supply: '1', token_id: '3' },
        { item_id: ids[3], max_supply: '1', token_id: '4' },
      ]);
      assert.deepEqual(
        (await stored(ids)).map((r) => [r.locked, r.max_supply, r.token_id]),
        [
          [true, '1', '2'],
          [true, '1', '1'],
          [true, '1', '3'],
          [true, '1', '4'],
        ],
      );
      assert.equal(await nextTokenId(collectionId), '5');
      const item = await env.call('GET', `/v1/items/${ids[0]}`, { token: admin.token });
      assert.equal(item.json().locked, true);
      assert.equal(item.json().token_id, '2');
    });

    it('answers 409 ITEM_ALREADY_LOCKED when any named item is locked, and locks nothing', async () => {
      const collectionId = await collection();
      const ids = await items(collectionId, 3);
      await lockOk({ item_id: ids[1] });
      assertError(await lock({ item_id: ids[1] }), 409, 'ITEM_ALREADY_LOCKED');
      const error = assertError(
        await lock({ item_ids: [ids[0], ids[1], ids[2]] }),
        409,
        'ITEM_ALREADY_LOCKED',
      );
      assert.match(error.detail, new RegExp(ids[1]!));
      assert.deepEqual(
        (await stored(ids)).map((r) => r.locked),
        [false, true, false],
      );
      assert.equal(await nextTokenId(collectionId), '2');
    });

    it('answers 404 for unknown or foreign items and collections, 400 for items of two collections', async () => {
      const collectionId = await collection();
      const [a, b] = await items(collectionId, 2);
      const [elsewhere] = await items(await collection(), 1);
      assertError(await lock({ item_id: UNKNOWN_ID }), 404, 'NOT_FOUND');
      assertError(await lock({ item_ids: [a, UNKNOWN_ID] }), 404, 'NOT_FOUND');
      assertError(await lock({ collection_id: UNKNOWN_ID }), 404, 'NOT_FOUND');
      assertError(await lock({ item_id: a }, otherAdmin), 404, 'NOT_FOUND');
      assertError(await lock({ collection_id: collectionId }, otherAdmin), 404, 'NOT_FOUND');
      const error = assertError(await lock({ item_ids: [a, elsewhere, b] }), 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/item_ids/1'],
      );
      assertError(await lock({ item_ids: [a, a] }), 400, 'VALIDATION_FAILED');
      assertError(await lock({ item_ids: [] }), 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        (await stored([a!, b!, elsewhere!])).map((r) => r.locked),
        [false, false, false],
      );
      assertError(await lock({ item_id: a }, member), 403, 'FORBIDDEN');
    });

    it('locks every remaining unlocked item of a collection by collection_id; none left is an empty 201', async () => {
      const collectionId = await collection();
      const ids = await items(collectionId, 5);
      await lockOk({ item_id: ids[2] });
      const outputs = await lockOk({ collection_id: collectionId });
      assert.deepEqual(outputs, [
        { item_id: ids[0], max_supply: '1', token_id: '2' },
        { item_id: ids[1], max_supply: '1', token_id: '3' },
        { item_id: ids[3], max_supply: '1', token_id: '4' },
        { item_id: ids[4], max_supply: '1', token_id: '5' },
      ]);
      assert.equal(await nextTokenId(collectionId), '6');
      assert.deepEqual(await lockOk({ collection_id: collectionId }), []);
      assert.equal(await nextTokenId(collectionId), '6');
      const [later] = await items(collectionId, 1);
      assert.deepEqual(await lockOk({ collection_id: collectionId }), [
        { item_id: later, max_supply: '1', token_id: '6' },
      ]);
    });
  });

  describe('rule 3: max_supply', () => {
    it('is 1 for ERC721: absent or "1" gives 1, any other value is a 400', async () => {
      const collectionId = await collection('ERC721');
      const ids = await items(collectionId, 3);
      assert.equal((await lockOk({ item_id: ids[0], max_supply: null }))[0]!.max_supply, '1');
      assert.equal((await lockOk({ item_id: ids[1], max_supply: '1' }))[0]!.max_supply, '1');
      for (const max_supply of ['2', '0']) {
        const error = assertError(await lock({ item_id: ids[2], max_supply }), 400, 'VALIDATION_FAILED');
        assert.deepEqual(
          error.fields?.map((f) => f.path),
          ['/max_supply'],
        );
      }
      assertError(await lock({ collection_id: collectionId, max_supply: '5' }), 400, 'VALIDATION_FAILED');
      assert.equal((await stored([ids[2]!]))[0]!.locked, false);
    });

    it('is above 0 for ERC1155, 2^256-1 when absent; 0, non-decimals and values above 2^256-1 are 400s', async () => {
      const collectionId = await collection('ERC1155');
      const ids = await items(collectionId, 4);
      assert.deepEqual(await lockOk({ item_id: ids[0] }), [
        { item_id: ids[0], max_supply: MAX_UINT256, token_id: '1' },
      ]);
      assert.equal((await lockOk({ item_id: ids[1], max_supply: '250' }))[0]!.max_supply, '250');
      assert.equal((await lockOk({ item_id: ids[2], max_supply: MAX_UINT256 }))[0]!.max_supply, MAX_UINT256);
      const tooBig = ((1n << 256n) + 5n).toString();
      for (const max_supply of ['0', tooBig, '-1', '1.5', '01', 5]) {
        assertError(await lock({ item_id: ids[3], max_supply }), 400, 'VALIDATION_FAILED');
      }
      assert.equal((await stored([ids[3]!]))[0]!.locked, false);
      assert.equal(await nextTokenId(collectionId), '4');
      const rest = await lockOk({ collection_id: collectionId, max_supply: '10' });
      assert.deepEqual(rest, [{ item_id: ids[3], max_supply: '10', token_id: '4' }]);
    });
  });

  describe('rule 4: token_id', () => {
    it('is required with item_id for MANUAL, must be free (409 ALREADY_EXISTS), and is refused otherwise', async () => {
      const collectionId = await collection('ERC721', 'MANUAL');
      const ids = await items(collectionId, 3);
      assert.deepEqual(await lockOk({ item_id: ids[0], token_id: '42' }), [
        { item_id: ids[0], max_supply: '1', token_id: '42' },
      ]);
      assertError(await lock({ item_id: ids[1], token_id: '42' }), 409, 'ALREADY_EXISTS');
      for (const body of [
        { item_id: ids[1] },
        { item_ids: [ids[1]], token_id: '7' },
        { item_ids: [ids[1], ids[2]] },
        { collection_id: collectionId },
        { collection_id: collectionId, token_id: '7' },
      ]) {
        const error = assertError(await lock(body), 400, 'VALIDATION_FAILED');
        assert.deepEqual(
          error.fields?.map((f) => f.path),
          ['/token_id'],
          JSON.stringify(body),
        );
      }
      assertError(
        await lock({ item_id: ids[1], token_id: ((1n << 256n) + 1n).toString() }),
        400,
        'VALIDATION_FAILED',
      );
      assert.deepEqual(
        (await stored(ids)).map((r) => [r.locked, r.token_id]),
        [
          [true, '42'],
          [false, null],
          [false, null],
        ],
      );
      // Token ids are per collection: 42 is free in another one.
      const [elsewhere] = await items(await collection('ERC1155', 'MANUAL'), 1);
      assert.equal((await lockOk({ item_id: elsewhere, token_id: '42' }))[0]!.token_id, '42');
    });

    it('gives one of two concurrent locks of one MANUAL token id a 201 and the other 409 ALREADY_EXISTS', async () => {
      const collectionId = await collection('ERC721', 'MANUAL');
      const [a, b] = await items(collectionId, 2);
      const responses = await Promise.all([
        lock({ item_id: a, token_id: '9' }),
        lock({ item_id: b, token_id: '9' }),
      ]);
      assert.deepEqual(
        responses.map((r) => r.statusCode).sort(),
        [201, 409],
        responses.map((r) => r.body).join(),
      );
      const loser = responses.find((r) => r.statusCode === 409)!;
      assert.equal(loser.json().error.code, 'ALREADY_EXISTS');
      const rows = await stored([a!, b!]);
      assert.equal(rows.filter((r) => r.locked).length, 1);
      assert.equal(rows.filter((r) => r.token_id === '9').length, 1);
    });

    it('is refused for AUTOMATIC and EXTERNAL collections; EXTERNAL ids stay null until mint', async () => {
      const automatic = await collection('ERC721', 'AUTOMATIC');
      const [item] = await items(automatic, 1);
      const error = assertError(await lock({ item_id: item, token_id: '3' }), 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/token_id'],
      );

      const external = await collection('ERC721', 'EXTERNAL');
      const ids = await items(external, 3);
      assertError(await lock({ item_id: ids[0], token_id: '3' }), 400, 'VALIDATION_FAILED');
      assert.deepEqual(await lockOk({ item_id: ids[0] }), [
        { item_id: ids[0], max_supply: '1', token_id: null },
      ]);
      assert.deepEqual(await lockOk({ collection_id: external }), [
        { item_id: ids[1], max_supply: '1', token_id: null },
        { item_id: ids[2], max_supply: '1', token_id: null },
      ]);
      assert.equal(await nextTokenId(external), '1');
    });
  });

  it('answers 409 INVALID_STATE for a collection without a deployment', async () => {
    const collectionId = await collection();
    const ids = await items(collectionId, 1);
    await env.database.db
      .updateTable('collections')
      .set({
        deployment_type: null,
        deployment_status: null,
        token_type: null,
        token_id_assignment_strategy: null,
      })
      .where('id', '=', collectionId)
      .execute();
    assertError(await lock({ item_id: ids[0] }), 409, 'INVALID_STATE');
    assertError(await lock({ collection_id: collectionId }), 409, 'INVALID_STATE');
    assert.equal((await stored(ids))[0]!.locked, false);
  });

  it('locks every item exactly once under concurrent locks by item and by collection, with unique AUTOMATIC ids', async () => {
    const collectionId = await collection('ERC1155', 'AUTOMATIC');
    const ids = await items(collectionId, 40);
    // Eight requests over overlapping and distinct items, and one by collection.
    const selections = [
      [0, 1, 2, 3],
      [2, 3, 4, 5],
      [6],
      [7, 8, 9],
      [9, 10, 11, 12, 13],
      [14, 20, 30],
      [30, 31, 39],
      [15, 16, 17, 18, 19],
    ].map((indexes) => indexes.map((i) => ids[i]!));
    const responses = await Promise.all([
      ...selections.map((itemIds) => lock({ item_ids: itemIds })),
      lock({ collection_id: collectionId }),
    ]);
    const winners: LockOutput[][] = [];
    for (const response of responses) {
      if (response.statusCode === 201) winners.push(response.json().lock_outputs);
      else assertError(response, 409, 'ITEM_ALREADY_LOCKED');
    }
    // Every item locked exactly once, by exactly one successful request.
    const outputs = winners.flat();
    assert.deepEqual(outputs.map((o) => o.item_id).sort(), [...ids].sort());
    // AUTOMATIC ids: unique and without gaps; within a request, increasing in creation order.
    assert.deepEqual(
      outputs.map((o) => Number(o.token_id)).sort((x, y) => x - y),
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    for (const request of winners) {
      const positions = request.map((o) => ids.indexOf(o.item_id));
      assert.deepEqual(
        positions,
        [...positions].sort((x, y) => x - y),
      );
      const tokenIds = request.map((o) => Number(o.token_id));
      assert.deepEqual(
        tokenIds,
        tokenIds.map((_, i) => tokenIds[0]! + i),
      );
    }
    const rows = await stored(ids);
    assert.ok(rows.every((r) => r.locked && r.max_supply === MAX_UINT256));
    assert.deepEqual(
      rows.map((r) => r.token_id),
      ids.map((id) => outputs.find((o) => o.item_id === id)!.token_id),
    );
    assert.equal(await nextTokenId(collectionId), '41');
  });
});
