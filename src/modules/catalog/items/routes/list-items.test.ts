import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';

type Query = Record<string, string | string[]>;

describe('GET /v1/items', () => {
  let env: TestEnv;
  let member: Actor;
  let otherAdmin: Actor;
  let collectionId: string;
  /** name → id, in creation order. */
  const ids: Record<string, string> = {};
  const order: string[] = [];

  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    const tenant = await env.createTenant();
    const { organizationId: orgId, admin } = tenant;
    ({ member, stranger: otherAdmin } = tenant);
    collectionId = (await insertCollection(env.database.db, { organizationId: orgId })).id;
    const other = (await insertCollection(env.database.db, { organizationId: orgId })).id;
    const attributes: Record<string, object> = {
      sword: { kind: 'weapon', level: 5, rare: true, url: 'https://x.test/a:b' },
      shield: { kind: 'armor', level: '5', rare: false },
      bow: { kind: 'weapon', level: 12, rare: false, tags: ['a', 'b'] },
      helmet: { kind: 'armor', level: 5.5 },
      ring: { kind: 'jewel', level: 1 },
    };
    const response = await env.call('POST', '/v1/items/bulk', {
      token: admin.token,
      body: {
        items: [
          ...Object.values(attributes).map((a) => ({ collection_id: collectionId, attributes: a })),
          { collection_id: other, attributes: { kind: 'weapon', level: 5 } },
        ],
      },
    });
    assert.equal(response.statusCode, 201, response.body);
    Object.keys(attributes).forEach((name, i) => {
      ids[name] = response.json().item_ids[i];
      order.push(name);
    });
    // sword and bow locked, with token ids 1 and 2.
    for (const [name, tokenId] of [
      ['sword', '1'],
      ['bow', '2'],
    ] as const) {
      await env.database.db
        .updateTable('items')
        .set({ locked: true, max_supply: '1', token_id: tokenId })
        .where('id', '=', ids[name]!)
        .execute();
    }
    // A number beyond JavaScript's precision keeps its digits in jsonb: stored as JSON text.
    await env.database.db
      .updateTable('items')
      .set({ attributes: '{"kind":"armor","level":5.5,"big":123456789012345678901234567890}' })
      .where('id', '=', ids.helmet!)
      .execute();
  });
  after(() => env.close());

  async function list(query: Query, actor = member) {
    return env.call('GET', '/v1/items', {
      token: actor.token,
      query: { collection_id: collectionId, ...query },
    });
  }
  async function names(query: Query): Promise<string[]> {
    const response = await list(query);
    assert.equal(response.statusCode, 200, response.body);
    const page = response.json();
    const byId = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
    const result = (page.results as { id: string }[]).map((r) => byId[r.id] ?? r.id);
    assert.equal(page.total_results, result.length, 'total_results counts the filtered items');
    return result;
  }

  it("lists a collection's items in creation order, or the reverse", async () => {
    assert.deepEqual(await names({}), order);
    assert.deepEqual(await names({ order_direction: 'DESC' }), [...order].reverse());
  });

  it('requires collection_id (400), answers 404 for another organization and refuses unknown parameters', async () => {
    const response = await env.call('GET', '/v1/items', { token: member.token });
    assertError(response, 400, 'VALIDATION_FAILED');
    assertError(await list({}, otherAdmin), 404, 'NOT_FOUND');
    assertError(await list({ colour: 'red' }), 400, 'VALIDATION_FAILED');
  });

  it('filters by attributes name:value, as text, with every entry required', async () => {
    assert.deepEqual(await names({ attributes: 'kind:weapon' }), ['sword', 'bow']);
    // A number and a string with the same text both match.
    assert.deepEqual(await names({ attributes: 'level:5' }), ['sword', 'shield']);
    assert.deepEqual(await names({ attributes: 'level:5.5' }), ['helmet']);
    assert.deepEqual(await names({ attributes: 'level:12' }), ['bow']);
    assert.deepEqual(await names({ attributes: 'big:123456789012345678901234567890' }), ['helmet']);
    assert.deepEqual(await names({ attributes: 'rare:true' }), ['sword']);
    assert.deepEqual(await names({ attributes: 'rare:false' }), ['shield', 'bow']);
    // The value is everything after the first ':'.
    assert.deepEqual(await names({ attributes: 'url:https://x.test/a:b' }), ['sword']);
    // Arrays and objects compare by their JSON text.
    assert.deepEqual(await names({ attributes: 'tags:["a", "b"]' }), ['bow']);
    // AND semantics.
    assert.deepEqual(await names({ attributes: ['kind:armor', 'level:5'] }), ['shield']);
    assert.deepEqual(await names({ attributes: ['kind:weapon', 'rare:false'] }), ['bow']);
    assert.deepEqual(await names({ attributes: ['kind:weapon', 'kind:armor'] }), []);
    assert.deepEqual(await names({ attributes: 'missing:x' }), []);
    assert.deepEqual(await names({ attributes: 'kind:' }), []);
  });

  it('refuses an attributes entry without ":" or without a name (400)', async () => {
    assertError(await list({ attributes: 'weapon' }), 400, 'VALIDATION_FAILED');
    assertError(await list({ attributes: ['kind:weapon', 'level'] }), 400, 'VALIDATION_FAILED');
    assertError(await list({ attributes: ':weapon' }), 400, 'VALIDATION_FAILED');
  });

  it('filters by locked and token_id, with the other filters', async () => {
    assert.deepEqual(await names({ locked: 'true' }), ['sword', 'bow']);
    assert.deepEqual(await names({ locked: 'false' }), ['shield', 'helmet', 'ring']);
    assert.deepEqual(await names({ token_id: '2' }), ['bow']);
    assert.deepEqual(await names({ token_id: '3' }), []);
    assert.deepEqual(await names({ locked: 'false', attributes: 'kind:armor' }), ['shield', 'helmet']);
    assertError(await list({ token_id: '-1' }), 400, 'VALIDATION_FAILED');
    assertError(await list({ token_id: '9'.repeat(78) }), 400, 'VALIDATION_FAILED');
    assertError(await list({ locked: 'maybe' }), 400, 'VALIDATION_FAILED');
  });

  it('pages with cursors bound to the filters; limit is 1..1000', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const response = await list({ limit: '2', ...(cursor && { cursor }) });
      assert.equal(response.statusCode, 200, response.body);
      const page = response.json();
      assert.equal(page.total_results, 5);
      assert.equal(page.has_more, page.cursor !== null);
      seen.push(...page.results.map((r: { id: string }) => r.id));
      cursor = page.cursor ?? undefined;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(
      seen,
      order.map((n) => ids[n]),
    );

    const first = (await list({ limit: '1', attributes: 'kind:armor' })).json();
    assert.equal(first.results[0].id, ids.shield);
    const next = (await list({ limit: '1', attributes: 'kind:armor', cursor: first.cursor })).json();
    assert.equal(next.results[0].id, ids.helmet);
    assert.equal(next.has_more, false);
    assertError(
      await list({ limit: '1', attributes: 'kind:weapon', cursor: first.cursor }),
      400,
      'INVALID_CURSOR',
    );
    assertError(await list({ cursor: 'garbage' }), 400, 'INVALID_CURSOR');

    assert.equal((await list({ limit: '1000' })).statusCode, 200);
    assertError(await list({ limit: '1001' }), 400, 'VALIDATION_FAILED');
    assertError(await list({ limit: '0' }), 400, 'VALIDATION_FAILED');
  });
});
