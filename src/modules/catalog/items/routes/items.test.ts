import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { assertError } from '../../../../../test/assertions.ts';
import { insertCollection, insertTransaction } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import type { ReservationKind } from '../../../../db/schema.ts';
import { uuidv7 } from '../../../../lib/ids.ts';

const UNKNOWN_ID = '0190f1c0-0000-7000-8000-0000000000ff';
const RECEIVER = '0x52908400098527886E0F7030069857D2E4169EE7';
const CARD = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    image: { type: 'string', format: 'uri' },
    level: { type: 'integer', minimum: 1 },
  },
  required: ['name'],
  additionalProperties: false,
};

type Response = LightMyRequestResponse;

describe('items', () => {
  let env: TestEnv;
  let orgId: string;
  let admin: Actor;
  let member: Actor;
  let otherAdmin: Actor;
  let cardTypeId: string;
  let otherTypeId: string;
  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    ({ organizationId: orgId, admin, member, stranger: otherAdmin } = await env.createTenant());
    cardTypeId = (await itemType(admin, CARD)).id;
    otherTypeId = (await itemType(otherAdmin, CARD)).id;
  });
  after(() => env.close());

  async function itemType(actor: Actor, jsonSchema: object) {
    const response = await env.call('POST', '/v1/item-types', {
      token: actor.token,
      body: { name: 'Card', json_schema: jsonSchema },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as { id: string };
  }
  async function collection(fields: { defaultItemTypeId?: string; editable?: boolean } = {}) {
    const row = await insertCollection(env.database.db, { organizationId: orgId });
    if (fields.defaultItemTypeId || fields.editable) {
      await env.database.db
        .updateTable('collections')
        .set({
          default_item_type_id: fields.defaultItemTypeId ?? null,
          editable_metadata: fields.editable ?? false,
        })
        .where('id', '=', row.id)
        .execute();
    }
    return row.id;
  }
  async function createItem(body: object, actor = admin): Promise<Response> {
    return env.call('POST', '/v1/items', { token: actor.token, body });
  }
  async function createItemOk(body: object) {
    const response = await createItem(body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  }
  async function itemCount(collectionId: string) {
    const row = await env.database.db
      .selectFrom('items')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('collection_id', '=', collectionId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  async function setMinted(itemId: string, status: 'MINTING' | 'MINTED', minted = '1') {
    await env.database.db
      .updateTable('items')
      .set({ locked: true, max_supply: '1', token_status: status, minted_supply: minted })
      .where('id', '=', itemId)
      .execute();
  }

  describe('create', () => {
    it('creates an item with the full item shape (201), media read from attributes.image', async () => {
      const collectionId = await collection();
      const attributes = { name: 'Ace', image: 'https://img.test/ace.png', level: 3 };
      const response = await createItem({
        collection_id: collectionId,
        item_type_id: cardTypeId,
        attributes,
      });
      assert.equal(response.statusCode, 201, response.body);
      const item = response.json();
      assert.deepEqual(
        { ...item, id: undefined, created_at: undefined, updated_at: undefined },
        {
          id: undefined,
          collection_id: collectionId,
          item_type_id: cardTypeId,
          attributes,
          locked: false,
          max_supply: null,
          token_id: null,
          token_status: 'NOT_MINTED',
          media: { image: 'https://img.test/ace.png' },
          royalty_info: null,
          created_at: undefined,
          updated_at: undefined,
        },
      );
      const got = await env.call('GET', `/v1/items/${item.id}`, { token: member.token });
      assert.equal(got.statusCode, 200, got.body);
      assert.deepEqual(got.json(), item);
    });

    it("defaults item_type_id to the collection's default item type, and validates against it", async () => {
      const collectionId = await collection({ defaultItemTypeId: cardTypeId });
      const item = await createItemOk({ collection_id: collectionId, attributes: { name: 'Default' } });
      assert.equal(item.item_type_id, cardTypeId);
      const error = assertError(
        await createItem({ collection_id: collectionId, item_type_id: null, attributes: { level: 0 } }),
        422,
        'SCHEMA_VALIDATION_FAILED',
      );
      assert.deepEqual(error.fields?.map((f) => f.path).sort(), ['/attributes/level', '/attributes/name']);
    });

    it('accepts any attributes without an item type', async () => {
      const collectionId = await collection();
      const item = await createItemOk({
        collection_id: collectionId,
        attributes: { anything: [1, { a: null }] },
      });
      assert.equal(item.item_type_id, null);
      assert.deepEqual(item.attributes, { anything: [1, { a: null }] });
      assert.equal(item.media.image, null);
    });

    it('answers 422 SCHEMA_VALIDATION_FAILED with JSON pointers under /attributes, and stores nothing', async () => {
      const collectionId = await collection();
      const error = assertError(
        await createItem({
          collection_id: collectionId,
          item_type_id: cardTypeId,
          attributes: { name: '', image: 'not a uri', extra: true },
        }),
        422,
        'SCHEMA_VALIDATION_FAILED',
      );
      assert.deepEqual(error.fields?.map((f) => f.path).sort(), [
        '/attributes/extra',
        '/attributes/image',
        '/attributes/name',
      ]);
      assert.equal(await itemCount(collectionId), 0);
    });

    it("answers 400 /item_type_id for another organization's or an unknown item type", async () => {
      const collectionId = await collection();
      for (const itemTypeId of [otherTypeId, UNKNOWN_ID]) {
        const error = assertError(
          await createItem({
            collection_id: collectionId,
            item_type_id: itemTypeId,
            attributes: { name: 'x' },
          }),
          400,
          'VALIDATION_FAILED',
        );
        assert.deepEqual(
          error.fields?.map((f) => f.path),
          ['/item_type_id'],
        );
      }
      assert.equal(await itemCount(collectionId), 0);
    });

    it("answers 404 for another organization's or an unknown collection; 400 without attributes; 403 for members", async () => {
      const collectionId = await collection();
      assertError(
        await createItem({ collection_id: collectionId, attributes: {} }, otherAdmin),
        404,
        'NOT_FOUND',
      );
      assertError(await createItem({ collection_id: UNKNOWN_ID, attributes: {} }), 404, 'NOT_FOUND');
      assertError(await createItem({ collection_id: collectionId }), 400, 'VALIDATION_FAILED');
      assertError(
        await createItem({ collection_id: collectionId, attributes: [] }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await createItem({ collection_id: collectionId, attributes: {} }, member),
        403,
        'FORBIDDEN',
      );
    });
  });

  describe('bulk create', () => {
    async function bulk(items: object[]): Promise<Response> {
      return env.call('POST', '/v1/items/bulk', { token: admin.token, body: { items } });
    }

    it('creates every item, returning ids in request order that is also creation order', async () => {
      const first = await collection();
      const second = await collection({ defaultItemTypeId: cardTypeId });
      const items = [
        { collection_id: first, attributes: { n: 0 } },
        { collection_id: second, attributes: { name: 'typed by default' } },
        { collection_id: first, item_type_id: cardTypeId, attributes: { name: 'typed' } },
        { collection_id: first, attributes: { n: 3 } },
      ];
      const response = await bulk(items);
      assert.equal(response.statusCode, 201, response.body);
      const ids = response.json().item_ids as string[];
      assert.equal(ids.length, 4);
      const rows = await env.database.db
        .selectFrom('items')
        .selectAll()
        .where('id', 'in', ids)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => r.id),
        ids,
      );
      assert.deepEqual(
        rows.map((r) => [r.collection_id, r.item_type_id, r.organization_id]),
        [
          [first, null, orgId],
          [second, cardTypeId, orgId],
          [first, cardTypeId, orgId],
          [first, null, orgId],
        ],
      );
    });

    it('creates nothing when one item fails, naming it by its index', async () => {
      const collectionId = await collection();
      const items: object[] = Array.from({ length: 5 }, (_, i) => ({
        collection_id: collectionId,
        item_type_id: cardTypeId,
        attributes: i === 3 ? { name: 'x', level: 'high' } : { name: `card ${i}` },
      }));
      const error = assertError(await bulk(items), 422, 'SCHEMA_VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/items/3/attributes/level'],
      );
      assert.equal(await itemCount(collectionId), 0);

      items[3] = { collection_id: collectionId, item_type_id: otherTypeId, attributes: { name: 'x' } };
      const typeError = assertError(await bulk(items), 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        typeError.fields?.map((f) => f.path),
        ['/items/3/item_type_id'],
      );
      assert.equal(await itemCount(collectionId), 0);

      const foreign = await insertCollection(env.database.db, {
        organizationId: (await env.createOrganization()).id,
      });
      items[3] = { collection_id: foreign.id, attributes: {} };
      assertError(await bulk(items), 404, 'NOT_FOUND');
      assert.equal(await itemCount(collectionId), 0);
    });

    it('takes 10,000 items in one request and refuses 10,001 (400) or none', async () => {
      const collectionId = await collection({ defaultItemTypeId: cardTypeId });
      const items = Array.from({ length: 10_001 }, (_, i) => ({
        collection_id: collectionId,
        attributes: { name: `card ${i}`, level: (i % 7) + 1, image: `https://img.test/${i}.png` },
      }));
      assertError(await bulk(items), 400, 'VALIDATION_FAILED');
      assert.equal(await itemCount(collectionId), 0);
      assertError(await bulk([]), 400, 'VALIDATION_FAILED');

      const response = await bulk(items.slice(0, 10_000));
      assert.equal(response.statusCode, 201, response.body);
      const ids = response.json().item_ids as string[];
      assert.equal(new Set(ids).size, 10_000);
      assert.deepEqual(ids, [...ids].sort());
      assert.equal(await itemCount(collectionId), 10_000);
      const last = await env.call('GET', `/v1/items/${ids[9_999]}`, { token: admin.token });
      assert.equal(last.json().attributes.name, 'card 9999');
    });
  });

  describe('update', () => {
    async function edit(itemId: string, body: object, actor = admin): Promise<Response> {
      return env.call('PATCH', `/v1/items/${itemId}`, { token: actor.token, body });
    }

    it('replaces every attribute, and keeps what the body leaves out', async () => {
      const collectionId = await collection();
      const item = await createItemOk({
        collection_id: collectionId,
        item_type_id: cardTypeId,
        attributes: { name: 'Old', level: 2 },
      });
      const response = await edit(item.id, { attributes: { name: 'New' } });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().attributes, { name: 'New' });
      assert.equal(response.json().item_type_id, cardTypeId);
      const royalty = await edit(item.id, {
        royalty_info: { receiver: RECEIVER.toLowerCase(), amount_bps: 250 },
      });
      assert.deepEqual(royalty.json().royalty_info, { receiver: RECEIVER, amount_bps: 250 });
      assert.deepEqual(royalty.json().attributes, { name: 'New' });
      const cleared = await edit(item.id, { royalty_info: null, attributes: null });
      assert.equal(cleared.json().royalty_info, null);
      assert.deepEqual(cleared.json().attributes, { name: 'New' });
    });

    it("validates attributes against the (new) item type's schema (422) and changes nothing then", async () => {
      const collectionId = await collection();
      const item = await createItemOk({ collection_id: collectionId, attributes: { title: 'untyped' } });
      const error = assertError(
        await edit(item.id, { item_type_id: cardTypeId }),
        422,
        'SCHEMA_VALIDATION_FAILED',
      );
      assert.deepEqual(error.fields?.map((f) => f.path).sort(), ['/attributes/name', '/attributes/title']);
      const typed = await edit(item.id, { item_type_id: cardTypeId, attributes: { name: 'typed' } });
      assert.equal(typed.statusCode, 200, typed.body);
      assert.equal(typed.json().item_type_id, cardTypeId);
      assertError(await edit(item.id, { attributes: { name: 5 } }), 422, 'SCHEMA_VALIDATION_FAILED');
      const untyped = await edit(item.id, { item_type_id: null, attributes: { free: true } });
      assert.equal(untyped.json().item_type_id, null);
      const stored = await env.call('GET', `/v1/items/${item.id}`, { token: admin.token });
      assert.deepEqual(stored.json().attributes, { free: true });
      const foreign = assertError(
        await edit(item.id, { item_type_id: otherTypeId }),
        400,
        'VALIDATION_FAILED',
      );
      assert.deepEqual(
        foreign.fields?.map((f) => f.path),
        ['/item_type_id'],
      );
    });

    it('refuses attribute changes once minted or minting (409), unless the collection has editable_metadata', async () => {
      const fixed = await collection();
      for (const status of ['MINTING', 'MINTED'] as const) {
        const item = await createItemOk({ collection_id: fixed, attributes: { name: 'v1' } });
        await setMinted(item.id, status);
        assertError(await edit(item.id, { attributes: { name: 'v2' } }), 409, 'ITEM_ALREADY_MINTED');
        const stored = await env.call('GET', `/v1/items/${item.id}`, { token: admin.token });
        assert.deepEqual(stored.json().attributes, { name: 'v1' });
        // The same attributes are no change; royalty info may still change.
        const same = await edit(item.id, {
          attributes: { name: 'v1' },
          royalty_info: { receiver: RECEIVER, amount_bps: 1 },
        });
        assert.equal(same.statusCode, 200, same.body);
      }
      const editable = await collection({ editable: true });
      const item = await createItemOk({ collection_id: editable, attributes: { name: 'v1' } });
      await setMinted(item.id, 'MINTED');
      const changed = await edit(item.id, { attributes: { name: 'v2' } });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.deepEqual(changed.json().attributes, { name: 'v2' });
    });

    it('refuses bad royalty_info (400), 404 elsewhere, 403 for members', async () => {
      const collectionId = await collection();
      const item = await createItemOk({ collection_id: collectionId, attributes: {} });
      assertError(
        await edit(item.id, { royalty_info: { receiver: RECEIVER, amount_bps: 10_001 } }),
        400,
        'VALIDATION_FAILED',
      );
      const badChecksum = `${RECEIVER.slice(0, -1)}e`;
      const error = assertError(
        await edit(item.id, { royalty_info: { receiver: badChecksum, amount_bps: 1 } }),
        400,
        'VALIDATION_FAILED',
      );
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/royalty_info/receiver'],
      );
      assertError(await edit(item.id, { unknown: 1 }), 400, 'VALIDATION_FAILED');
      assertError(await edit(item.id, { attributes: {} }, otherAdmin), 404, 'NOT_FOUND');
      assertError(await edit(UNKNOWN_ID, { attributes: {} }), 404, 'NOT_FOUND');
      assertError(await edit(item.id, { attributes: {} }, member), 403, 'FORBIDDEN');
    });
  });

  async function fixtureTransaction(): Promise<string> {
    return (await insertTransaction(env.database.db, orgId, { type: 'MINT' })).id;
  }
  async function reserve(
    itemId: string,
    kind: ReservationKind,
    holderId: string,
    quantity: string,
    released: boolean,
  ) {
    await env.database.db
      .insertInto('item_reservations')
      .values({
        id: uuidv7(),
        item_id: itemId,
        kind,
        holder_id: holderId,
        quantity,
        released_at: released ? new Date() : null,
      })
      .execute();
  }
  async function request(table: 'mint_requests' | 'transfer_requests', itemId: string, collectionId: string) {
    const id = uuidv7();
    await env.database.db
      .insertInto(table)
      .values({
        id,
        organization_id: orgId,
        collection_id: collectionId,
        item_id: itemId,
        quantity: '1',
        to_address: RECEIVER,
        transaction_id: await fixtureTransaction(),
      })
      .execute();
    return id;
  }

  describe('delete', () => {
    async function remove(itemId: string, actor = admin): Promise<Response> {
      return env.call('DELETE', `/v1/items/${itemId}`, { token: actor.token });
    }

    it('deletes an item never minted (204), locked or not', async () => {
      const collectionId = await collection();
      const item = await createItemOk({ collection_id: collectionId, attributes: {} });
      const response = await remove(item.id);
      assert.equal(response.statusCode, 204, response.body);
      assertError(await env.call('GET', `/v1/items/${item.id}`, { token: admin.token }), 404, 'NOT_FOUND');
      const locked = await createItemOk({ collection_id: collectionId, attributes: {} });
      await env.database.db
        .updateTable('items')
        .set({ locked: true, max_supply: '1' })
        .where('id', '=', locked.id)
        .execute();
      assert.equal((await remove(locked.id)).statusCode, 204);
    });

    it('refuses a minted or minting item (409 ITEM_ALREADY_MINTED) and keeps it', async () => {
      const collectionId = await collection();
      for (const [status, minted] of [
        ['MINTING', '0'],
        ['MINTED', '1'],
      ] as const) {
        const item = await createItemOk({ collection_id: collectionId, attributes: {} });
        await setMinted(item.id, status, minted);
        assertError(await remove(item.id), 409, 'ITEM_ALREADY_MINTED');
        assert.equal((await env.call('GET', `/v1/items/${item.id}`, { token: admin.token })).statusCode, 200);
      }
    });

    it('refuses a reserved item (409 ITEM_RESERVED), and one with records (409 INVALID_STATE)', async () => {
      const collectionId = await collection();
      const reserved = await createItemOk({ collection_id: collectionId, attributes: {} });
      await reserve(reserved.id, 'LISTING', uuidv7(), '1', false);
      assertError(await remove(reserved.id), 409, 'ITEM_RESERVED');
      const withHistory = await createItemOk({ collection_id: collectionId, attributes: {} });
      await reserve(withHistory.id, 'EMAIL_CLAIM', uuidv7(), '1', true);
      assertError(await remove(withHistory.id), 409, 'INVALID_STATE');
      assert.equal(await itemCount(collectionId), 2);
    });

    it('answers 404 elsewhere and 403 to members', async () => {
      const collectionId = await collection();
      const item = await createItemOk({ collection_id: collectionId, attributes: {} });
      assertError(await remove(item.id, otherAdmin), 404, 'NOT_FOUND');
      assertError(await remove(item.id, member), 403, 'FORBIDDEN');
      assertError(await remove(UNKNOWN_ID), 404, 'NOT_FOUND');
    });
  });

  describe('status', () => {
    it('reports holders, requests, active reservations and supply', async () => {
      const collectionId = await collection();
      const item = await createItemOk({ collection_id: collectionId, attributes: {} });
      const empty = await env.call('GET', `/v1/items/${item.id}/status`, { token: member.token });
      assert.equal(empty.statusCode, 200, empty.body);
      assert.deepEqual(empty.json(), {
        email_claim_ids: [],
        listing_ids: [],
        mint_request_ids: [],
        transfer_request_ids: [],
        reservations: { mint: 0, transfer: 0 },
        supply: { current: '0', total: null },
      });

      const [claimA, claimB, listing] = [uuidv7(), uuidv7(), uuidv7()];
      await reserve(item.id, 'EMAIL_CLAIM', claimA, '1', true);
      await reserve(item.id, 'LISTING', listing, '1', true);
      await reserve(item.id, 'EMAIL_CLAIM', claimB, '1', true);
      await reserve(item.id, 'EMAIL_CLAIM', claimA, '1', true);
      const mintA = await request('mint_requests', item.id, collectionId);
      const mintB = await request('mint_requests', item.id, collectionId);
      const transfer = await request('transfer_requests', item.id, collectionId);
      await reserve(item.id, 'MINT', mintB, '7', false);
      await env.database.db
        .updateTable('items')
        .set({ locked: true, max_supply: '100', minted_supply: '3' })
        .where('id', '=', item.id)
        .execute();

      const response = await env.call('GET', `/v1/items/${item.id}/status`, { token: member.token });
      assert.deepEqual(response.json(), {
        email_claim_ids: [claimA, claimB],
        listing_ids: [listing],
        mint_request_ids: [mintA, mintB],
        transfer_request_ids: [transfer],
        reservations: { mint: 7, transfer: 0 },
        supply: { current: '3', total: '100' },
      });
      assertError(
        await env.call('GET', `/v1/items/${item.id}/status`, { token: otherAdmin.token }),
        404,
        'NOT_FOUND',
      );
    });
  });
});
