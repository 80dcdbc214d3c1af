import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCollection } from '../../../../test/factories.ts';
import { setupTest, type TestEnv } from '../../../../test/harness.ts';
import { insertItems } from '../../../../test/support/token-requests.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { moveReservations, releaseReservations, reserveItems } from './item-flows.service.ts';
import { parseItemSelection } from './item-selection.ts';

const rejects = (fn: () => unknown, code: string) =>
  assert.throws(fn, (error) => error instanceof ApiError && error.code === code);

describe('parseItemSelection', () => {
  const id = uuidv7();
  it('accepts each of the five forms, null meaning absent', () => {
    assert.deepEqual(parseItemSelection({ item_id: id, item_ids: null }), { kind: 'items', itemIds: [id] });
    assert.deepEqual(parseItemSelection({ item_ids: [id] }), { kind: 'items', itemIds: [id] });
    assert.deepEqual(parseItemSelection({ collection_id: id, token_ids: null }), {
      kind: 'collection',
      collectionId: id,
    });
    assert.deepEqual(parseItemSelection({ collection_id: id, token_ids: ['7'] }), {
      kind: 'token_ids',
      collectionId: id,
      tokenIds: [7n],
    });
    assert.deepEqual(
      parseItemSelection({ collection_id: id, token_ranges: [{ from_id: '1', to_id: '100' }] }),
      { kind: 'token_ranges', collectionId: id, ranges: [{ from: 1n, to: 100n }] },
    );
  });

  it('refuses every other combination, more than 100 items and inverted or oversized ranges', () => {
    rejects(() => parseItemSelection({}), 'INVALID_SELECTION');
    rejects(() => parseItemSelection({ token_ids: ['1'] }), 'INVALID_SELECTION');
    rejects(() => parseItemSelection({ item_id: id, collection_id: id }), 'INVALID_SELECTION');
    rejects(
      () => parseItemSelection({ item_ids: Array.from({ length: 101 }, () => uuidv7()) }),
      'TOO_MANY_ITEMS',
    );
    rejects(
      () =>
        parseItemSelection({
          collection_id: id,
          token_ranges: [
            { from_id: '0', to_id: '0' },
            { from_id: '10', to_id: '109' },
          ],
        }),
      'TOO_MANY_ITEMS',
    );
    rejects(
      () => parseItemSelection({ collection_id: id, token_ranges: [{ from_id: '2', to_id: '1' }] }),
      'VALIDATION_FAILED',
    );
    rejects(
      () => parseItemSelection({ collection_id: id, token_ids: [(2n ** 256n).toString()] }),
      'VALIDATION_FAILED',
    );
  });
});

describe('reservations', () => {
  let env: TestEnv;
  let organizationId: string;
  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    organizationId = (await env.createOrganization()).id;
  });
  after(() => env.close());

  const active = (itemIds: string[]) =>
    env.database.db
      .selectFrom('item_reservations')
      .selectAll()
      .where('item_id', 'in', itemIds)
      .where('released_at', 'is', null)
      .execute();

  it('one active reservation per item: a second holder fails ITEM_RESERVED and changes nothing', async () => {
    const db = env.database.db;
    const collection = await insertCollection(db, { organizationId });
    const items = await insertItems(db, 3, { collectionId: collection.id, organizationId, firstTokenId: 1n });
    const listing = uuidv7();
    const rows = await reserveItems(db, items.slice(0, 2), 'LISTING', listing, 1n);
    assert.deepEqual(
      rows.map((r) => [r.item_id, r.kind, r.holder_id, r.quantity]),
      items.slice(0, 2).map((i) => [i.id, 'LISTING', listing, '1']),
    );
    await assert.rejects(
      db.transaction().execute((tx) => reserveItems(tx, items.slice(1), 'EMAIL_CLAIM', uuidv7(), 1n)),
      (error) => error instanceof ApiError && error.code === 'ITEM_RESERVED',
    );
    assert.equal((await active([items[2]!.id])).length, 0, 'the failed reservation left nothing');

    // Per-item holders and quantities.
    const [a, b] = [uuidv7(), uuidv7()];
    const more = await reserveItems(db, [items[2]!], 'MINT', [a], [5n]);
    assert.deepEqual([more[0]!.holder_id, more[0]!.quantity], [a, '5']);
    assert.deepEqual(await releaseReservations(db, [a, b]), [items[2]!.id]);

    // Release frees the items for the next holder; releasing again is a no-op.
    assert.deepEqual(
      (await releaseReservations(db, listing)).sort(),
      items
        .slice(0, 2)
        .map((i) => i.id)
        .sort(),
    );
    assert.deepEqual(await releaseReservations(db, listing), []);
    assert.equal((await active(items.map((i) => i.id))).length, 0);
    await reserveItems(db, items, 'TRANSFER', uuidv7(), 1n);
    assert.equal((await active(items.map((i) => i.id))).length, 3);
  });

  it("moves a holder's reservations to new holders in one statement, keeping the history", async () => {
    const db = env.database.db;
    const collection = await insertCollection(db, { organizationId });
    const items = await insertItems(db, 3, { collectionId: collection.id, organizationId, firstTokenId: 1n });
    const listing = uuidv7();
    await reserveItems(db, items, 'LISTING', listing, 1n);
    const intent = uuidv7();
    const expiresAt = new Date(Date.now() + 900_000);
    const moved = await moveReservations(db, {
      from: listing,
      kind: 'PURCHASE_INTENT',
      to: new Map([[items[0]!.id, intent]]),
      expiresAt,
    });
    assert.deepEqual(
      moved.map((r) => [r.item_id, r.kind, r.holder_id, r.quantity, r.expires_at?.toISOString()]),
      [[items[0]!.id, 'PURCHASE_INTENT', intent, '1', expiresAt.toISOString()]],
    );
    const now = await active(items.map((i) => i.id));
    assert.deepEqual(
      now.map((r) => [r.item_id, r.holder_id]).sort(),
      [
        [items[0]!.id, intent],
        [items[1]!.id, listing],
        [items[2]!.id, listing],
      ].sort(),
      "one active reservation per item: the moved one, the others still the listing's",
    );
    const history = await db
      .selectFrom('item_reservations')
      .select(['holder_id', 'released_at'])
      .where('item_id', '=', items[0]!.id)
      .orderBy('created_at')
      .execute();
    assert.deepEqual(
      history.map((r) => [r.holder_id, r.released_at !== null]),
      [
        [listing, true],
        [intent, false],
      ],
    );
  });

  it('moves nothing when an item is not held by the holder: ITEM_RESERVED, the transaction aborts', async () => {
    const db = env.database.db;
    const collection = await insertCollection(db, { organizationId });
    const items = await insertItems(db, 2, { collectionId: collection.id, organizationId, firstTokenId: 1n });
    const claim = uuidv7();
    await reserveItems(db, [items[0]!], 'EMAIL_CLAIM', claim, 1n);
    await reserveItems(db, [items[1]!], 'MINT', uuidv7(), 1n);
    await assert.rejects(
      db.transaction().execute((tx) =>
        moveReservations(tx, {
          from: claim,
          kind: 'MINT',
          to: new Map(items.map((i) => [i.id, uuidv7()])),
        }),
      ),
      (error) => error instanceof ApiError && error.code === 'ITEM_RESERVED',
    );
    const now = await active(items.map((i) => i.id));
    assert.equal(now.find((r) => r.item_id === items[0]!.id)?.holder_id, claim, "still the claim's");
  });
});
