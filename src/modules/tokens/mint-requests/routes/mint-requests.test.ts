import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeFunctionData, getAddress, type Hex, zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  completedTransactionColumns,
  insertCollection,
  organizationWallet,
  submittedTransactionColumns,
} from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import {
  assertFailsWithoutTrace,
  closeOpenBatches,
  findItemRow,
  type insertItem,
  insertItems,
} from '../../../../../test/support/token-requests.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import type { CollectionRow } from '../../../../db/schema.ts';
import type { ErrorCode } from '../../../../lib/errors.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { settleTransaction } from '../../../platform/transactions/transaction-settled.task.ts';

const erc721 = platformContracts.FlexibleERC721;
const erc1155 = platformContracts.FlexibleERC1155;
const RECIPIENT = privateKeyToAccount(`0x${'11'.repeat(32)}`).address;

const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

/** The address with the case of one letter flipped: mixed case, wrong EIP-55 checksum. */
function badChecksum(address: string): string {
  const chars = [...address];
  const i = chars.findIndex((ch, index) => index > 1 && /[a-fA-F]/.test(ch));
  chars[i] = chars[i] === chars[i]!.toLowerCase() ? chars[i]!.toUpperCase() : chars[i]!.toLowerCase();
  return chars.join('');
}

describe('mint requests (database level: selection, rules, reservations, records)', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  let member: Actor;
  let other: Actor;
  let walletAddress: string;
  let seq = 1000n;
  const db = () => env.database.db;

  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    ({ organizationId, admin, member, stranger: other } = await env.createTenant());
    walletAddress = (await organizationWallet(db(), organizationId)).address;
  });
  after(() => env.close());

  const collection = (fields: Partial<Parameters<typeof insertCollection>[1]> = {}) =>
    insertCollection(db(), { organizationId, deployedOn: 'FlexibleERC721', ...fields });
  const items = (c: CollectionRow, count: number, fields: Partial<Parameters<typeof insertItem>[1]> = {}) => {
    const first = seq;
    seq += BigInt(count);
    return insertItems(db(), count, {
      collectionId: c.id,
      organizationId: c.organization_id,
      firstTokenId: first,
      ...fields,
    });
  };
  // Each request's batch closed at once, as a relayer pass would (its calldata written).
  const mint = async (body: Record<string, unknown>, token = admin.token) => {
    const response = await env.call('POST', '/v1/mint-requests', {
      token,
      body: { to_address: RECIPIENT, ...body },
    });
    await closeOpenBatches(env.ctx);
    return response;
  };
  const expectError = (body: Record<string, unknown>, status: number, code: ErrorCode) =>
    assertFailsWithoutTrace(db(), () => mint(body), status, code);
  const transactionData = async (id: string) =>
    (await db().selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow()) as {
      data: string;
      to_address: string;
      from_address: string;
      type: string;
    };

  it('answers INVALID_SELECTION unless exactly one selector form is given', async () => {
    const c = await collection();
    const [item] = await items(c, 1);
    const id = item!.id;
    const bad: Record<string, unknown>[] = [
      {},
      { item_id: id, item_ids: [id] },
      { item_id: id, collection_id: c.id },
      { item_ids: [id], collection_id: c.id },
      { token_ids: ['1'] },
      { token_ranges: [{ from_id: '1', to_id: '2' }] },
      { collection_id: c.id, token_ids: ['1'], token_ranges: [{ from_id: '1', to_id: '2' }] },
      { item_id: id, token_ids: ['1'] },
      { item_ids: [id], collection_id: c.id, token_ids: ['1'] },
    ];
    for (const body of bad) await expectError(body, 400, 'INVALID_SELECTION');
    // null is absent.
    const ok = await mint({ item_id: id, item_ids: null, collection_id: null, quantity: null });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it('answers TOO_MANY_ITEMS above 100 item ids, token ids or ids covered by ranges', async () => {
    const c = await collection();
    const ids = Array.from({ length: 101 }, () => uuidv7());
    await expectError({ item_ids: ids }, 400, 'TOO_MANY_ITEMS');
    const tokenIds = Array.from({ length: 101 }, (_, i) => String(i + 1));
    await expectError({ collection_id: c.id, token_ids: tokenIds }, 400, 'TOO_MANY_ITEMS');
    await expectError(
      { collection_id: c.id, token_ranges: [{ from_id: '1', to_id: '101' }] },
      400,
      'TOO_MANY_ITEMS',
    );
    await expectError(
      {
        collection_id: c.id,
        token_ranges: [
          { from_id: '1', to_id: '50' },
          { from_id: '1000', to_id: '1050' },
        ],
      },
      400,
      'TOO_MANY_ITEMS',
    );
  });

  it('validates the address, the quantity and the ranges (400 VALIDATION_FAILED)', async () => {
    const c = await collection();
    const [item] = await items(c, 1);
    const cases: Record<string, unknown>[] = [
      { item_id: item!.id, to_address: 'not an address' },
      { item_id: item!.id, to_address: badChecksum(RECIPIENT) },
      { item_id: item!.id, quantity: '0' },
      { item_id: item!.id, quantity: '2' },
      { item_id: item!.id, quantity: 1 },
      { item_id: item!.id, quantity: (2n ** 256n).toString() },
      { item_id: item!.id, colour: 'red' },
      { item_ids: [item!.id, item!.id] },
      { item_ids: [] },
      { collection_id: c.id, token_ranges: [{ from_id: '5', to_id: '4' }] },
      { collection_id: c.id, token_ranges: [{ from_id: '5' }] },
      { collection_id: c.id, token_ids: ['01'] },
    ];
    for (const body of cases) await expectError(body, 400, 'VALIDATION_FAILED');
  });

  it('refuses a recipient no token can be sent to: the zero address and the contract itself', async () => {
    const c = await collection();
    const [item] = await items(c, 1);
    for (const to_address of [zeroAddress, c.contract_address!, c.contract_address!.toLowerCase()]) {
      const error = await expectError({ item_id: item!.id, to_address }, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/to_address'],
      );
    }
  });

  it("answers 404 for unknown items and another organization's items or collection", async () => {
    const c = await collection();
    const [item] = await items(c, 1);
    const otherOrgId = other.user.organization_id;
    const foreign = await collection({ organizationId: otherOrgId });
    const [foreignItem] = await items(foreign, 1);
    await expectError({ item_id: uuidv7() }, 404, 'NOT_FOUND');
    await expectError({ item_id: foreignItem!.id }, 404, 'NOT_FOUND');
    await expectError({ item_ids: [item!.id, foreignItem!.id] }, 404, 'NOT_FOUND');
    await expectError({ collection_id: foreign.id }, 404, 'NOT_FOUND');
    await expectError({ collection_id: uuidv7() }, 404, 'NOT_FOUND');
    await expectError({ collection_id: c.id, token_ids: ['999999999'] }, 404, 'NOT_FOUND');
    // And the other organization cannot mint ours.
    const response = await mint({ item_id: item!.id }, other.token);
    assert.equal(response.statusCode, 404);
  });

  it('needs a deployed, mintable collection, and items of one collection', async () => {
    const undeployed = await collection({ contractAddress: null });
    const [u] = await items(undeployed, 1);
    await expectError({ item_id: u!.id }, 409, 'INVALID_STATE');
    await expectError({ collection_id: undeployed.id }, 409, 'INVALID_STATE');
    const failed = await collection({ deploymentStatus: 'FAILED' });
    await expectError({ collection_id: failed.id }, 409, 'INVALID_STATE');

    const noMint = await collection({ capabilities: ['ERC721', 'ERC2981'] });
    const [n] = await items(noMint, 1);
    await expectError({ item_id: n!.id }, 422, 'MISSING_MINT_CAPABILITY');
    // A voucher-only contract is minted by buyers, not by the service.
    const voucherOnly = await collection({ capabilities: ['ERC721', 'MINT_VOUCHER'] });
    await expectError({ collection_id: voucherOnly.id }, 422, 'MISSING_MINT_CAPABILITY');
    // EXTERNAL ids are chosen by the contract: mintBatchNoId is needed.
    const external = await collection({
      strategy: 'EXTERNAL',
      capabilities: ['ERC721', 'ADMIN_MINT_SINGLE'],
    });
    await expectError({ collection_id: external.id }, 422, 'MISSING_MINT_CAPABILITY');
    const erc1155NoBatch = await collection({ tokenType: 'ERC1155', capabilities: ['ERC1155'] });
    await expectError({ collection_id: erc1155NoBatch.id }, 422, 'MISSING_MINT_CAPABILITY');

    const a = await collection();
    const b = await collection();
    const [ia] = await items(a, 1);
    const [ib] = await items(b, 1);
    await expectError({ item_ids: [ia!.id, ib!.id] }, 400, 'INVALID_SELECTION');
  });

  it('refuses named items that are unlocked, minted, reserved or being minted (all or nothing)', async () => {
    const c = await collection();
    const [fine] = await items(c, 1);
    const [unlocked] = await items(c, 1, { locked: false, maxSupply: null });
    const [minted] = await items(c, 1, { tokenStatus: 'MINTED', mintedSupply: 1n, heldSupply: 1n });
    const [listed] = await items(c, 1);
    await db()
      .insertInto('item_reservations')
      .values({ id: uuidv7(), item_id: listed!.id, kind: 'LISTING', holder_id: uuidv7(), quantity: '1' })
      .execute();
    await expectError({ item_ids: [fine!.id, unlocked!.id] }, 409, 'ITEM_NOT_LOCKED');
    await expectError({ item_ids: [fine!.id, minted!.id] }, 409, 'ITEM_ALREADY_MINTED');
    const reserved = await expectError({ item_ids: [fine!.id, listed!.id] }, 409, 'ITEM_RESERVED');
    assert.match(reserved.detail, /listing/);
    await expectError({ collection_id: c.id, token_ids: [minted!.token_id!] }, 409, 'ITEM_ALREADY_MINTED');
    // The fine item is untouched by those failures, and a mint in flight reserves it.
    const first = await mint({ item_id: fine!.id });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal((await findItemRow(db(), fine!.id)).token_status, 'MINTING');
    const again = await expectError({ item_id: fine!.id }, 409, 'ITEM_RESERVED');
    assert.match(again.detail, /mint request/);
  });

  it('ERC1155: mints within the supply left (INSUFFICIENT_SUPPLY beyond it), several units per item', async () => {
    const c = await collection({ deployedOn: 'FlexibleERC1155' });
    const [a, b] = await items(c, 2, { maxSupply: 10n });
    const [full] = await items(c, 1, {
      maxSupply: 3n,
      mintedSupply: 3n,
      heldSupply: 3n,
      tokenStatus: 'MINTED',
    });
    const [partly] = await items(c, 1, {
      maxSupply: 10n,
      mintedSupply: 8n,
      heldSupply: 8n,
      tokenStatus: 'MINTED',
    });
    await expectError({ item_id: a!.id, quantity: '11' }, 422, 'INSUFFICIENT_SUPPLY');
    await expectError({ item_id: partly!.id, quantity: '3' }, 422, 'INSUFFICIENT_SUPPLY');
    await expectError({ item_id: full!.id }, 409, 'ITEM_ALREADY_MINTED');

    const response = await mint({ item_ids: [b!.id, a!.id], quantity: '5' });
    assert.equal(response.statusCode, 201, response.body);
    const records = response.json().mint_requests as {
      item_id: string;
      quantity: string;
      transaction_id: string;
    }[];
    assert.deepEqual(
      records.map((r) => [r.item_id, r.quantity]),
      [
        [a!.id, '5'],
        [b!.id, '5'],
      ],
    );
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 1, 'one batch for the request');
    const tx = await transactionData(records[0]!.transaction_id);
    const call = decodeFunctionData({ abi: erc1155.abi, data: tx.data as Hex });
    assert.equal(call.functionName, 'mintToMany', 'an entry per record (ADMIN_MINT_BATCH)');
    assert.deepEqual(call.args, [
      [RECIPIENT, RECIPIENT],
      [BigInt(a!.token_id!), BigInt(b!.token_id!)],
      [5n, 5n],
    ]);

    // The rest of the supply of an item already partly minted.
    const rest = await mint({ item_id: partly!.id, quantity: '2' });
    assert.equal(rest.statusCode, 201, rest.body);
    // collection_id takes only items with room for the quantity.
    const none = await mint({ collection_id: c.id, quantity: '3' });
    assert.equal(none.statusCode, 201, none.body);
    assert.deepEqual(none.json().mint_requests, []);
  });

  it('ERC721 with a batch mint: one transaction, one record per item, items reserved and MINTING', async () => {
    const c = await collection();
    const batch = await items(c, 3);
    const response = await mint({
      item_ids: batch.map((i) => i.id).reverse(),
      to_address: RECIPIENT.toLowerCase(),
    });
    assert.equal(response.statusCode, 201, response.body);
    const records = response.json().mint_requests as Record<string, unknown>[];
    assert.equal(records.length, 3);
    assert.deepEqual(
      records.map((r) => r.item_id),
      batch.map((i) => i.id),
      'records in item creation order',
    );
    for (const [i, record] of records.entries()) {
      assert.equal(record.state, 'PENDING');
      assert.equal(record.tx_hash, null);
      assert.equal(record.quantity, '1');
      assert.equal(record.to_address, RECIPIENT, 'checksummed');
      assert.equal(record.collection_id, c.id);
      assert.equal(record.token_id, batch[i]!.token_id);
    }
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 1);
    const tx = await transactionData(records[0]!.transaction_id as string);
    assert.equal(tx.type, 'MINT');
    assert.equal(tx.to_address, getAddress(c.contract_address!));
    assert.equal(tx.from_address, walletAddress);
    const call = decodeFunctionData({ abi: erc721.abi, data: tx.data as Hex });
    assert.equal(call.functionName, 'mintBatch');
    assert.deepEqual(call.args, [[RECIPIENT, RECIPIENT, RECIPIENT], batch.map((i) => BigInt(i.token_id!))]);
    const reservations = await db()
      .selectFrom('item_reservations')
      .selectAll()
      .where(
        'item_id',
        'in',
        batch.map((i) => i.id),
      )
      .execute();
    assert.equal(reservations.length, 3);
    for (const r of reservations) {
      assert.equal(r.kind, 'MINT');
      assert.equal(r.released_at, null);
      assert.ok(records.some((rec) => rec.id === r.holder_id && rec.item_id === r.item_id));
    }
    for (const item of batch) assert.equal((await findItemRow(db(), item.id)).token_status, 'MINTING');
    const listed = await env.call('GET', '/v1/mint-requests', {
      token: member.token,
      query: { collection_id: c.id },
    });
    assert.deepEqual(
      listed.json().results.map((r: { item_id: string }) => r.item_id),
      batch.map((i) => i.id),
      'listed in item order too',
    );
  });

  it('a contract with single mints only gets one transaction per item (mint or mintWithURI)', async () => {
    const single = await collection({ capabilities: ['ERC721', 'ADMIN_MINT_SINGLE'] });
    const three = await items(single, 3);
    const response = await mint({ collection_id: single.id });
    assert.equal(response.statusCode, 201, response.body);
    const records = response.json().mint_requests as { transaction_id: string; item_id: string }[];
    assert.equal(records.length, 3);
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 3);
    for (const [i, record] of records.entries()) {
      const call = decodeFunctionData({
        abi: erc721.abi,
        data: (await transactionData(record.transaction_id)).data as Hex,
      });
      assert.equal(call.functionName, 'mint');
      assert.deepEqual(call.args, [RECIPIENT, BigInt(three[i]!.token_id!)]);
    }

    const withUri = await collection({ capabilities: ['ERC721', 'ADMIN_MINT_SINGLE_URI'] });
    const [item] = await items(withUri, 1);
    const uri = await mint({ item_id: item!.id });
    assert.equal(uri.statusCode, 201, uri.body);
    const call = decodeFunctionData({
      abi: erc721.abi,
      data: (await transactionData(uri.json().mint_requests[0].transaction_id)).data as Hex,
    });
    assert.equal(call.functionName, 'mintWithURI');
    assert.deepEqual(call.args, [
      RECIPIENT,
      BigInt(item!.token_id!),
      `http://tokens.test/v1/metadata/${withUri.id}/${item!.token_id}`,
    ]);
  });

  it('collection_id takes the first 100 qualifying items in creation order and passes over the rest', async () => {
    const c = await collection();
    const [unlocked] = await items(c, 1, { locked: false, maxSupply: null });
    const [minted] = await items(c, 1, { tokenStatus: 'MINTED', mintedSupply: 1n });
    const [claimed] = await items(c, 1);
    await db()
      .insertInto('item_reservations')
      .values({ id: uuidv7(), item_id: claimed!.id, kind: 'EMAIL_CLAIM', holder_id: uuidv7(), quantity: '1' })
      .execute();
    const eligible = await items(c, 102);
    const response = await mint({ collection_id: c.id });
    assert.equal(response.statusCode, 201, response.body);
    const taken = (response.json().mint_requests as { item_id: string }[]).map((r) => r.item_id);
    assert.deepEqual(
      taken,
      eligible.slice(0, 100).map((i) => i.id),
    );
    for (const skipped of [unlocked, minted, claimed]) assert.ok(!taken.includes(skipped!.id));
    // The next request takes what is left.
    const rest = await mint({ collection_id: c.id });
    assert.deepEqual(
      (rest.json().mint_requests as { item_id: string }[]).map((r) => r.item_id),
      eligible.slice(100).map((i) => i.id),
    );
    const none = await mint({ collection_id: c.id });
    assert.equal(none.statusCode, 201);
    assert.deepEqual(none.json().mint_requests, []);
  });

  it('token_ids name items that must qualify; token_ranges take the qualifying items in the ranges', async () => {
    const c = await collection();
    const range = await items(c, 5);
    const [unlocked] = await items(c, 1, { locked: false, maxSupply: null });
    const first = BigInt(range[0]!.token_id!);
    await expectError(
      { collection_id: c.id, token_ids: [range[0]!.token_id!, unlocked!.token_id!] },
      409,
      'ITEM_NOT_LOCKED',
    );
    const named = await mint({ collection_id: c.id, token_ids: [range[1]!.token_id!] });
    assert.equal(named.statusCode, 201, named.body);
    assert.equal(named.json().mint_requests[0].item_id, range[1]!.id);
    const ranged = await mint({
      collection_id: c.id,
      token_ranges: [
        { from_id: first.toString(), to_id: (first + 2n).toString() },
        { from_id: (first + 4n).toString(), to_id: (first + 10n).toString() },
      ],
    });
    assert.equal(ranged.statusCode, 201, ranged.body);
    assert.deepEqual(
      (ranged.json().mint_requests as { item_id: string }[]).map((r) => r.item_id),
      [range[0]!.id, range[2]!.id, range[4]!.id],
      'item 1 is reserved, item 3 is outside the ranges, the unlocked one is passed over',
    );
  });

  it('concurrent requests: one wins a named item, collection-wide ones take disjoint sets', async () => {
    const c = await collection();
    const [item] = await items(c, 1);
    const results = await Promise.all([mint({ item_id: item!.id }), mint({ item_id: item!.id })]);
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 409]);
    const loser = results.find((r) => r.statusCode === 409)!;
    assert.equal(loser.json().error.code, 'ITEM_RESERVED');

    const wide = await collection();
    const all = await items(wide, 150);
    const [a, b] = await Promise.all([mint({ collection_id: wide.id }), mint({ collection_id: wide.id })]);
    assert.equal(a.statusCode, 201, a.body);
    assert.equal(b.statusCode, 201, b.body);
    const setA = (a.json().mint_requests as { item_id: string }[]).map((r) => r.item_id);
    const setB = (b.json().mint_requests as { item_id: string }[]).map((r) => r.item_id);
    assert.equal(setA.filter((id) => setB.includes(id)).length, 0, 'disjoint');
    assert.ok(setA.length <= 100 && setB.length <= 100, 'at most 100 items each');
    assert.deepEqual([...setA, ...setB].sort(), all.map((i) => i.id).sort(), 'every item taken once');
  });

  it('lists with filters and pages, gets one, and keeps other organizations out', async () => {
    const c = await collection();
    const [x, y] = await items(c, 2);
    const elsewhere = randomAddress();
    const mx = (await mint({ item_id: x!.id })).json().mint_requests[0];
    const my = (await mint({ item_id: y!.id, to_address: elsewhere.toLowerCase() })).json().mint_requests[0];
    const list = async (query: Record<string, string>, token = member.token) => {
      const response = await env.call('GET', '/v1/mint-requests', { token, query });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };
    assert.deepEqual(
      (await list({ collection_id: c.id })).results.map((r: { id: string }) => r.id),
      [mx.id, my.id],
    );
    assert.deepEqual(
      (await list({ item_id: y!.id })).results.map((r: { id: string }) => r.id),
      [my.id],
    );
    assert.deepEqual(
      (await list({ to_address: elsewhere.toLowerCase(), collection_id: c.id })).results.map(
        (r: { id: string }) => r.id,
      ),
      [my.id],
    );
    const page = await list({ collection_id: c.id, limit: '1' });
    assert.equal(page.total_results, 2);
    assert.equal(page.has_more, true);
    const next = await list({ collection_id: c.id, limit: '1', cursor: page.cursor });
    assert.deepEqual(
      next.results.map((r: { id: string }) => r.id),
      [my.id],
    );
    assert.equal((await list({ collection_id: c.id }, other.token)).total_results, 0);
    for (const query of [{ limit: '1001' }, { to_address: 'nope' }] as Record<string, string>[]) {
      const bad = await env.call('GET', '/v1/mint-requests', { token: member.token, query });
      assert.equal(bad.statusCode, 400, bad.body);
    }
    assert.equal((await list({ limit: '1000' })).results.length > 0, true);

    const got = await env.call('GET', `/v1/mint-requests/${mx.id}`, { token: member.token });
    assert.equal(got.statusCode, 200, got.body);
    assert.deepEqual(got.json(), mx);
    const foreign = await env.call('GET', `/v1/mint-requests/${mx.id}`, { token: other.token });
    assert.equal(foreign.statusCode, 404);
    const forbidden = await mint({ item_id: x!.id }, member.token);
    assert.equal(forbidden.statusCode, 403);
  });

  it('settlement: success mints the items and releases; failure makes them mintable again; both idempotent', async () => {
    const c = await collection({ deployedOn: 'FlexibleERC1155' });
    const [toWallet, toOther] = await items(c, 2, { maxSupply: 10n });
    const [earlier] = await items(c, 1, {
      maxSupply: 10n,
      mintedSupply: 2n,
      heldSupply: 2n,
      tokenStatus: 'MINTED',
    });
    const one = (await mint({ item_id: toWallet!.id, quantity: '4', to_address: walletAddress })).json()
      .mint_requests[0];
    const two = (await mint({ item_id: toOther!.id, quantity: '3' })).json().mint_requests[0];
    const three = (await mint({ item_id: earlier!.id, quantity: '1' })).json().mint_requests[0];
    let nonce = 100;
    const settle = async (id: string, fields: Record<string, unknown>) => {
      const row = await db()
        .updateTable('transactions')
        .set({
          ...(fields.state === 'COMPLETED' && completedTransactionColumns(nonce++, 'SUCCESS')),
          ...fields,
          completed_at: new Date(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await settleTransaction(db(), env.ctx, row.id);
      await settleTransaction(db(), env.ctx, row.id);
    };
    const get = async (id: string) =>
      (await env.call('GET', `/v1/mint-requests/${id}`, { token: member.token })).json();

    await db()
      .updateTable('transactions')
      .set({ ...submittedTransactionColumns(99), state: 'SUBMITTED', tx_hash: `0x${'ab'.repeat(32)}` })
      .where('id', '=', one.transaction_id)
      .execute();
    assert.equal((await get(one.id)).state, 'SUBMITTED');
    assert.equal((await get(one.id)).tx_hash, `0x${'ab'.repeat(32)}`);
    await settle(one.transaction_id, { state: 'COMPLETED', on_chain_status: 'SUCCESS' });
    await settle(two.transaction_id, { state: 'COMPLETED', on_chain_status: 'SUCCESS' });
    await settle(three.transaction_id, {
      state: 'CANCELLED',
      failure_reason: 'execution reverted: TokenMaxSupply',
    });

    assert.equal((await get(one.id)).state, 'COMPLETED');
    const failed = await get(three.id);
    assert.equal(failed.state, 'FAILED');
    assert.equal(failed.failure_reason, 'execution reverted: TokenMaxSupply');
    const w = await findItemRow(db(), toWallet!.id);
    assert.deepEqual([w.token_status, w.minted_supply, w.held_supply], ['MINTED', '4', '4']);
    const o = await findItemRow(db(), toOther!.id);
    assert.deepEqual([o.token_status, o.minted_supply, o.held_supply], ['MINTED', '3', '0']);
    const e = await findItemRow(db(), earlier!.id);
    assert.deepEqual([e.token_status, e.minted_supply], ['MINTED', '2'], 'back to MINTED: it had supply');
    const active = await db()
      .selectFrom('item_reservations')
      .select('id')
      .where('item_id', 'in', [toWallet!.id, toOther!.id, earlier!.id])
      .where('released_at', 'is', null)
      .execute();
    assert.equal(active.length, 0);
    // Mintable again, within the supply left.
    const retry = await mint({ item_id: toWallet!.id, quantity: '6' });
    assert.equal(retry.statusCode, 201, retry.body);
    await expectError({ item_id: toOther!.id, quantity: '8' }, 422, 'INSUFFICIENT_SUPPLY');
  });

  it('settlement of a failed ERC721 mint puts the item back to NOT_MINTED', async () => {
    const c = await collection();
    const [item] = await items(c, 1);
    const record = (await mint({ item_id: item!.id })).json().mint_requests[0];
    const row = await db()
      .updateTable('transactions')
      .set(completedTransactionColumns(1, 'FAILURE'))
      .where('id', '=', record.transaction_id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await settleTransaction(db(), env.ctx, row.id);
    const after = await findItemRow(db(), item!.id);
    assert.deepEqual([after.token_status, after.minted_supply], ['NOT_MINTED', '0']);
    const again = await mint({ item_id: item!.id });
    assert.equal(again.statusCode, 201, again.body);
  });
});
