import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import type { CollectionRow, TokenStatus } from '../../../../db/schema.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { contractMetadataUri, tokenMetadataBaseUri } from '../metadata.service.ts';

const MAX_UINT256 = (2n ** 256n - 1n).toString();
const RECEIVER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** Public (no credentials): token metadata (tokenURI) and contract metadata (contractURI). */
describe('metadata', () => {
  let env: TestEnv;
  let organizationId: string;
  let collection: CollectionRow;

  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    organizationId = (await env.createOrganization()).id;
    collection = await insertCollection(env.database.db, { organizationId, name: 'Dragons' });
  });
  after(() => env.close());

  async function insertItem(
    c: { id: string },
    tokenId: string | null,
    attributes: Record<string, unknown>,
    fields: { tokenStatus?: TokenStatus; mintedSupply?: string } = {},
  ) {
    await env.database.db
      .insertInto('items')
      .values({
        id: uuidv7(),
        organization_id: organizationId,
        collection_id: c.id,
        attributes: JSON.stringify(attributes),
        token_id: tokenId,
        token_status: fields.tokenStatus ?? 'MINTED',
        minted_supply: fields.mintedSupply ?? (fields.tokenStatus === undefined ? '1' : '0'),
      })
      .execute();
  }

  /** Public: no credentials, ever. */
  const get = (path: string, headers: Record<string, string> = {}) => env.call('GET', path, { headers });

  describe('token metadata', () => {
    it('serves a minted item as ERC-721 metadata JSON: name, description, image, every other attribute a trait (by name)', async () => {
      await insertItem(collection, '1', {
        name: 'Red dragon',
        description: 'Breathes fire',
        image: 'https://img.test/1.png',
        color: 'red',
        level: 5,
        rare: true,
        stats: { hp: 10 },
        tags: ['a', 'b'],
        missing: null,
      });
      const response = await get(`/v1/metadata/${collection.id}/1`);
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(response.headers['cache-control'], 'public, max-age=60');
      assert.deepEqual(JSON.parse(response.body), {
        name: 'Red dragon',
        description: 'Breathes fire',
        image: 'https://img.test/1.png',
        attributes: [
          { trait_type: 'color', value: 'red' },
          { trait_type: 'level', value: 5 },
          { trait_type: 'rare', value: true },
          { trait_type: 'stats', value: { hp: 10 } },
          { trait_type: 'tags', value: ['a', 'b'] },
        ],
      });
    });

    it('names a token "<collection> #<id>" without a name attribute, and leaves out a missing image', async () => {
      await insertItem(collection, '2', { name: 42, color: 'blue' });
      const response = await get(`/v1/metadata/${collection.id}/2`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        name: 'Dragons #2',
        attributes: [
          { trait_type: 'color', value: 'blue' },
          { trait_type: 'name', value: 42 },
        ],
      });
    });

    it('serves token ids up to 2^256-1 exactly', async () => {
      await insertItem(collection, MAX_UINT256, { color: 'gold' });
      const response = await get(`/v1/metadata/${collection.id}/${MAX_UINT256}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().name, `Dragons #${MAX_UINT256}`);
    });

    it('answers 404 for tokens not minted (NOT_MINTED, MINTING), unknown token ids and items without one', async () => {
      await insertItem(collection, '10', { name: 'Unminted' }, { tokenStatus: 'NOT_MINTED' });
      await insertItem(collection, '11', { name: 'Minting' }, { tokenStatus: 'MINTING' });
      await insertItem(collection, null, { name: 'No token' }, { tokenStatus: 'NOT_MINTED' });
      for (const tokenId of ['10', '11', '12', '0']) {
        assertError(await get(`/v1/metadata/${collection.id}/${tokenId}`), 404, 'NOT_FOUND');
      }
    });

    it('serves an ERC-1155 token once any supply is minted, even while more is minting', async () => {
      const multi = await insertCollection(env.database.db, { organizationId, tokenType: 'ERC1155' });
      await insertItem(multi, '5', { name: 'Potion' }, { tokenStatus: 'MINTING', mintedSupply: '3' });
      await insertItem(multi, '6', { name: 'Elixir' }, { tokenStatus: 'MINTING', mintedSupply: '0' });
      const served = await get(`/v1/metadata/${multi.id}/5`);
      assert.equal(served.statusCode, 200, served.body);
      assert.equal(served.json().name, 'Potion');
      assertError(await get(`/v1/metadata/${multi.id}/6`), 404, 'NOT_FOUND');
    });

    it('answers 404 for unknown collections, whatever the id looks like', async () => {
      assertError(await get(`/v1/metadata/${uuidv7()}/1`), 404, 'NOT_FOUND');
      assertError(await get('/v1/metadata/not-a-uuid/1'), 404, 'NOT_FOUND');
    });

    it('answers 400 for token ids that are not Uint256 decimal strings', async () => {
      const tooBig = (2n ** 256n).toString();
      for (const bad of ['01', '-1', '1.0', 'abc', '0x1', tooBig, '1'.repeat(79)]) {
        assertError(await get(`/v1/metadata/${collection.id}/${bad}`), 400, 'VALIDATION_FAILED');
      }
    });

    it('serves the preview to every minted token while a DELAYED collection hides, the item once revealed', async () => {
      const preview = { name: 'Mystery egg', image: 'https://img.test/egg.png', attributes: [] };
      const delayed = await insertCollection(env.database.db, {
        organizationId,
        name: 'Eggs',
        revealStrategy: 'DELAYED',
        previewMetadata: preview,
      });
      await insertItem(delayed, '1', { name: 'Phoenix', image: 'https://img.test/phoenix.png', power: 9 });
      await insertItem(delayed, '2', { name: 'Griffin' });
      await insertItem(delayed, '3', { name: 'Secret' }, { tokenStatus: 'NOT_MINTED' });

      for (const tokenId of ['1', '2']) {
        const hidden = await get(`/v1/metadata/${delayed.id}/${tokenId}`);
        assert.equal(hidden.statusCode, 200, hidden.body);
        assert.deepEqual(hidden.json(), preview);
        assert.equal(hidden.headers['cache-control'], 'no-store');
      }
      assertError(await get(`/v1/metadata/${delayed.id}/3`), 404, 'NOT_FOUND');

      await env.database.db
        .updateTable('collections')
        .set({ reveal_hidden: false })
        .where('id', '=', delayed.id)
        .execute();
      const revealed = await get(`/v1/metadata/${delayed.id}/1`);
      assert.equal(revealed.statusCode, 200, revealed.body);
      assert.deepEqual(revealed.json(), {
        name: 'Phoenix',
        image: 'https://img.test/phoenix.png',
        attributes: [{ trait_type: 'power', value: 9 }],
      });
      assert.equal(revealed.headers['cache-control'], 'public, max-age=60');
    });

    it('answers 304 to a request holding the current ETag, 200 once the metadata changed', async () => {
      await insertItem(collection, '20', { name: 'Cached', color: 'green' });
      const first = await get(`/v1/metadata/${collection.id}/20`);
      const etag = String(first.headers.etag);
      assert.match(etag, /^"[\w-]+"$/);
      const again = await get(`/v1/metadata/${collection.id}/20`, { 'if-none-match': etag });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      const weak = await get(`/v1/metadata/${collection.id}/20`, { 'if-none-match': `"x", W/${etag}` });
      assert.equal(weak.statusCode, 304);

      await env.database.db
        .updateTable('items')
        .set({ attributes: JSON.stringify({ name: 'Cached', color: 'teal' }) })
        .where('collection_id', '=', collection.id)
        .where('token_id', '=', '20')
        .execute();
      const changed = await get(`/v1/metadata/${collection.id}/20`, { 'if-none-match': etag });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.notEqual(changed.headers.etag, etag);
      assert.deepEqual(changed.json().attributes, [{ trait_type: 'color', value: 'teal' }]);
    });
  });

  describe('contract metadata', () => {
    it('serves name, symbol, image and the royalty as seller_fee_basis_points and fee_recipient', async () => {
      const royal = await insertCollection(env.database.db, { organizationId, name: 'Royal' });
      await env.database.db
        .updateTable('collections')
        .set({
          image_url: 'https://img.test/cover.png',
          royalty_info: JSON.stringify({ receiver: RECEIVER.toLowerCase(), amount_bps: 250 }),
        })
        .where('id', '=', royal.id)
        .execute();
      const response = await get(`/v1/metadata/${royal.id}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(response.headers['cache-control'], 'public, max-age=60');
      assert.deepEqual(response.json(), {
        name: 'Royal',
        symbol: 'TST',
        image: 'https://img.test/cover.png',
        seller_fee_basis_points: 250,
        fee_recipient: RECEIVER,
      });
    });

    it('leaves out the image and royalty fields a collection does not have', async () => {
      const response = await get(`/v1/metadata/${collection.id}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { name: 'Dragons', symbol: 'TST' });
    });

    it('answers 404 for unknown collections, whatever the id looks like', async () => {
      assertError(await get(`/v1/metadata/${uuidv7()}`), 404, 'NOT_FOUND');
      assertError(await get('/v1/metadata/not-a-uuid'), 404, 'NOT_FOUND');
    });
  });

  it('builds the URIs the contracts are deployed with under PUBLIC_BASE_URL', () => {
    assert.equal(
      tokenMetadataBaseUri(env.ctx.config.http.publicBaseUrl, collection.id),
      `http://tokens.test/v1/metadata/${collection.id}/`,
    );
    assert.equal(
      contractMetadataUri(env.ctx.config.http.publicBaseUrl, collection.id),
      `http://tokens.test/v1/metadata/${collection.id}`,
    );
  });
});
