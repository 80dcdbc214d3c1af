import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { insertCollection } from '../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../test/harness.ts';

/**
 * A collection's item list takes total_results from counters the items triggers keep
 * (collections.item_count, locked_item_count) instead of counting every row: they must equal a
 * real count after every kind of write, by the API or not.
 */
describe('item counters behind total_results', () => {
  let env: TestEnv;
  let admin: Actor;
  let a: string;
  let b: string;
  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    const orgId = (await env.createOrganization()).id;
    admin = await env.createUser(orgId, 'ORG_ADMIN');
    a = (await insertCollection(env.database.db, { organizationId: orgId })).id;
    b = (await insertCollection(env.database.db, { organizationId: orgId })).id;
  });
  after(() => env.close());

  const db = () => env.database.db;

  async function assertCounts(collectionId: string): Promise<void> {
    const real = await sql<{ items: string; locked: string }>`
      SELECT count(*) AS items, count(*) FILTER (WHERE locked) AS locked FROM items WHERE collection_id = ${collectionId}
    `.execute(db());
    const { items, locked } = real.rows[0]!;
    for (const [query, expected] of [
      [{}, Number(items)],
      [{ locked: 'true' }, Number(locked)],
      [{ locked: 'false' }, Number(items) - Number(locked)],
    ] as const) {
      const response = await env.call('GET', '/v1/items', {
        token: admin.token,
        query: { collection_id: collectionId, limit: '1', ...query },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().total_results, expected, `${collectionId} ${JSON.stringify(query)}`);
    }
  }

  const bulk = async (items: { collection_id: string; attributes: object }[]) => {
    const response = await env.call('POST', '/v1/items/bulk', { token: admin.token, body: { items } });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().item_ids as string[];
  };

  it('follow creates, bulk creates over two collections, locks, deletes and direct SQL', async () => {
    await assertCounts(a);
    const ids = await bulk([
      ...Array.from({ length: 7 }, (_, i) => ({ collection_id: a, attributes: { i } })),
      ...Array.from({ length: 3 }, (_, i) => ({ collection_id: b, attributes: { i } })),
    ]);
    await assertCounts(a);
    await assertCounts(b);

    const one = await env.call('POST', '/v1/items/lock', { token: admin.token, body: { item_id: ids[0] } });
    assert.equal(one.statusCode, 201, one.body);
    await assertCounts(a);
    const all = await env.call('POST', '/v1/items/lock', { token: admin.token, body: { collection_id: a } });
    assert.equal(all.statusCode, 201, all.body);
    await assertCounts(a);

    const deleted = await env.call('DELETE', `/v1/items/${ids[8]}`, { token: admin.token });
    assert.equal(deleted.statusCode, 204, deleted.body);
    await assertCounts(b);

    // Writes that bypass the API: an item moved between collections and unlocked, a deletion.
    await db()
      .updateTable('items')
      .set({ collection_id: b, locked: false })
      .where('id', '=', ids[1]!)
      .execute();
    await db().deleteFrom('items').where('id', '=', ids[2]!).execute();
    await assertCounts(a);
    await assertCounts(b);
  });

  it('stay exact under concurrent bulk creates into one collection', async () => {
    await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        bulk(Array.from({ length: 50 }, (_, i) => ({ collection_id: b, attributes: { n, i } }))),
      ),
    );
    await assertCounts(b);
  });
});
