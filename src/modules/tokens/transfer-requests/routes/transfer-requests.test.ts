import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeFunctionData, getAddress, type Hex, zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  completedTransactionColumns,
  insertCollection,
  organizationWallet,
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
import { capabilitiesOf } from '../../../../chain/capabilities.ts';
import type { CollectionRow } from '../../../../db/schema.ts';
import type { ErrorCode } from '../../../../lib/errors.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { settleTransaction } from '../../../platform/transactions/transaction-settled.task.ts';

const erc721 = platformContracts.FlexibleERC721;
const erc1155 = platformContracts.FlexibleERC1155;
const RECIPIENT = privateKeyToAccount(`0x${'33'.repeat(32)}`).address;

describe('transfer requests (database level: selection, rules, reservations, records)', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  let member: Actor;
  let other: Actor;
  let walletAddress: string;
  let seq = 1n;
  const db = () => env.database.db;

  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    ({ organizationId, admin, member, stranger: other } = await env.createTenant());
    walletAddress = (await organizationWallet(db(), organizationId)).address;
  });
  after(() => env.close());

  const collection = (fields: Partial<Parameters<typeof insertCollection>[1]> = {}) =>
    insertCollection(db(), {
      organizationId,
      contractAddress: privateKeyToAccount(generatePrivateKey()).address,
      abi: [...erc721.abi],
      capabilities: capabilitiesOf(erc721.abi),
      tokenType: 'ERC721',
      strategy: 'AUTOMATIC',
      ...fields,
    });
  const erc1155Collection = () =>
    collection({ tokenType: 'ERC1155', abi: [...erc1155.abi], capabilities: capabilitiesOf(erc1155.abi) });
  /** Minted items held by the organization's wallet (held units: `held`, default all). */
  const held = (c: CollectionRow, count: number, fields: Partial<Parameters<typeof insertItem>[1]> = {}) => {
    const first = seq;
    seq += BigInt(count);
    const supply = fields.maxSupply ?? 1n;
    return insertItems(db(), count, {
      collectionId: c.id,
      organizationId: c.organization_id,
      firstTokenId: first,
      maxSupply: supply,
      tokenStatus: 'MINTED',
      mintedSupply: supply,
      heldSupply: supply,
      ...fields,
    });
  };
  // Each request's batch closed at once, as a relayer pass would (its calldata written).
  const transfer = async (body: Record<string, unknown>, token = admin.token) => {
    const response = await env.call('POST', '/v1/transfer-requests', {
      token,
      body: { to_address: RECIPIENT, ...body },
    });
    await closeOpenBatches(env.ctx);
    return response;
  };
  const expectError = (body: Record<string, unknown>, status: number, code: ErrorCode) =>
    assertFailsWithoutTrace(db(), () => transfer(body), status, code);
  const transactionOf = (id: string) =>
    db().selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('checks the selection, the address and the quantity like a mint request', async () => {
    const c = await collection();
    const [item] = await held(c, 1);
    await expectError({}, 400, 'INVALID_SELECTION');
    await expectError({ item_id: item!.id, collection_id: c.id }, 400, 'INVALID_SELECTION');
    await expectError({ token_ranges: [{ from_id: '1', to_id: '1' }] }, 400, 'INVALID_SELECTION');
    await expectError({ item_ids: Array.from({ length: 101 }, () => uuidv7()) }, 400, 'TOO_MANY_ITEMS');
    await expectError(
      { collection_id: c.id, token_ranges: [{ from_id: '1', to_id: '101' }] },
      400,
      'TOO_MANY_ITEMS',
    );
    await expectError({ item_id: item!.id, quantity: '2' }, 400, 'VALIDATION_FAILED');
    await expectError({ item_id: item!.id, to_address: '0x12' }, 400, 'VALIDATION_FAILED');
    const c1155 = await erc1155Collection();
    const [unit] = await held(c1155, 1, { maxSupply: 10n });
    await expectError({ item_id: unit!.id, quantity: (2n ** 53n).toString() }, 400, 'VALIDATION_FAILED');
  });

  it('refuses a recipient no token can be sent to: the zero address and the contract itself', async () => {
    const c = await collection();
    const [item] = await held(c, 1);
    for (const to_address of [zeroAddress, c.contract_address!, c.contract_address!.toLowerCase()]) {
      const error = await expectError({ item_id: item!.id, to_address }, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        error.fields?.map((f) => f.path),
        ['/to_address'],
      );
    }
  });

  it('needs a deployed token contract and answers 404 across organizations', async () => {
    const undeployed = await collection({ contractAddress: null });
    const [u] = await held(undeployed, 1);
    await expectError({ item_id: u!.id }, 409, 'INVALID_STATE');
    const noToken = await collection({ capabilities: [] });
    await expectError({ collection_id: noToken.id }, 422, 'MISSING_TOKEN_CAPABILITY');
    const c = await collection();
    const [item] = await held(c, 1);
    const response = await transfer({ item_id: item!.id }, other.token);
    assert.equal(response.statusCode, 404);
    await expectError({ collection_id: uuidv7() }, 404, 'NOT_FOUND');
    const forbidden = await transfer({ item_id: item!.id }, member.token);
    assert.equal(forbidden.statusCode, 403);
  });

  it('refuses named items that are unlocked, not minted, reserved or not held by the wallet', async () => {
    const c = await collection();
    const [fine] = await held(c, 1);
    const [unlocked] = await held(c, 1, {
      locked: false,
      maxSupply: null,
      tokenStatus: 'NOT_MINTED',
      mintedSupply: 0n,
      heldSupply: 0n,
    });
    const [notMinted] = await held(c, 1, { tokenStatus: 'NOT_MINTED', mintedSupply: 0n, heldSupply: 0n });
    const [minting] = await held(c, 1, { tokenStatus: 'MINTING', mintedSupply: 0n, heldSupply: 0n });
    const [elsewhere] = await held(c, 1, { heldSupply: 0n });
    const [listed] = await held(c, 1);
    await db()
      .insertInto('item_reservations')
      .values({ id: uuidv7(), item_id: listed!.id, kind: 'LISTING', holder_id: uuidv7(), quantity: '1' })
      .execute();
    await expectError({ item_ids: [fine!.id, unlocked!.id] }, 409, 'ITEM_NOT_LOCKED');
    await expectError({ item_ids: [fine!.id, notMinted!.id] }, 409, 'ITEM_NOT_MINTED');
    await expectError({ item_id: minting!.id }, 409, 'ITEM_NOT_MINTED');
    await expectError({ item_ids: [fine!.id, listed!.id] }, 409, 'ITEM_RESERVED');
    const notHeld = await expectError({ item_ids: [fine!.id, elsewhere!.id] }, 409, 'INVALID_STATE');
    assert.match(notHeld.detail, /not held by the organization wallet/);
    await expectError({ collection_id: c.id, token_ids: [elsewhere!.token_id!] }, 409, 'INVALID_STATE');

    const c1155 = await erc1155Collection();
    const [partly] = await held(c1155, 1, { maxSupply: 10n, heldSupply: 3n });
    await expectError({ item_id: partly!.id, quantity: '4' }, 409, 'INVALID_STATE');
  });

  it('ERC721: one transferToMany for the request, an entry per item; records carry an integer quantity', async () => {
    const c = await collection();
    const two = await held(c, 2);
    const response = await transfer({ item_ids: two.map((i) => i.id), to_address: RECIPIENT.toLowerCase() });
    assert.equal(response.statusCode, 201, response.body);
    const records = response.json().transfer_requests as Record<string, unknown>[];
    assert.deepEqual(
      records.map((r) => [r.item_id, r.quantity, r.state, r.tx_hash, r.to_address, r.token_id]),
      two.map((i) => [i.id, 1, 'PENDING', null, RECIPIENT, i.token_id]),
    );
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 1);
    const tx = await transactionOf(records[0]!.transaction_id as string);
    assert.equal(tx.type, 'TRANSFER');
    assert.equal(tx.to_address, getAddress(c.contract_address!));
    const call = decodeFunctionData({ abi: erc721.abi, data: tx.data as Hex });
    assert.equal(call.functionName, 'transferToMany', 'BATCH_TRANSFER');
    assert.deepEqual(call.args, [walletAddress, [RECIPIENT, RECIPIENT], two.map((i) => BigInt(i.token_id!))]);
    const reservations = await db()
      .selectFrom('item_reservations')
      .selectAll()
      .where(
        'item_id',
        'in',
        two.map((i) => i.id),
      )
      .execute();
    assert.deepEqual(
      reservations.map((r) => r.kind),
      ['TRANSFER', 'TRANSFER'],
    );
    for (const item of two) assert.equal((await findItemRow(db(), item.id)).token_status, 'MINTED');
    await expectError({ item_id: two[0]!.id }, 409, 'ITEM_RESERVED');
  });

  it('ERC1155: one transferToMany for the request, quantity units of each item', async () => {
    const c = await erc1155Collection();
    const two = await held(c, 2, { maxSupply: 10n });
    const response = await transfer({ collection_id: c.id, quantity: '3' });
    assert.equal(response.statusCode, 201, response.body);
    const records = response.json().transfer_requests as { quantity: number; transaction_id: string }[];
    assert.deepEqual(
      records.map((r) => r.quantity),
      [3, 3],
    );
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 1);
    const call = decodeFunctionData({
      abi: erc1155.abi,
      data: (await transactionOf(records[0]!.transaction_id)).data as Hex,
    });
    assert.equal(call.functionName, 'transferToMany', 'BATCH_TRANSFER');
    assert.deepEqual(call.args, [
      walletAddress,
      [RECIPIENT, RECIPIENT],
      two.map((i) => BigInt(i.token_id!)),
      [3n, 3n],
    ]);
  });

  it('collection_id passes over items that are not minted, not held or reserved', async () => {
    const c = await collection();
    await held(c, 1, { tokenStatus: 'NOT_MINTED', mintedSupply: 0n, heldSupply: 0n });
    await held(c, 1, { heldSupply: 0n });
    const [reserved] = await held(c, 1);
    await db()
      .insertInto('item_reservations')
      .values({
        id: uuidv7(),
        item_id: reserved!.id,
        kind: 'EMAIL_CLAIM',
        holder_id: uuidv7(),
        quantity: '1',
      })
      .execute();
    const [takeable] = await held(c, 1);
    const response = await transfer({ collection_id: c.id });
    assert.equal(response.statusCode, 201, response.body);
    assert.deepEqual(
      (response.json().transfer_requests as { item_id: string }[]).map((r) => r.item_id),
      [takeable!.id],
    );
    const none = await transfer({ collection_id: c.id });
    assert.deepEqual(none.json().transfer_requests, []);
  });

  it('settlement: success takes the units off the wallet, failure releases them; idempotent', async () => {
    const c = await erc1155Collection();
    const [a, b, self] = await held(c, 3, { maxSupply: 10n });
    const ra = (await transfer({ item_id: a!.id, quantity: '4' })).json().transfer_requests[0];
    const rb = (await transfer({ item_id: b!.id, quantity: '4' })).json().transfer_requests[0];
    const rs = (await transfer({ item_id: self!.id, to_address: walletAddress })).json().transfer_requests[0];
    let nonce = 1;
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
      for (let i = 0; i < 2; i++) await settleTransaction(db(), env.ctx, row.id);
    };
    await settle(ra.transaction_id, { state: 'COMPLETED', on_chain_status: 'SUCCESS' });
    await settle(rb.transaction_id, { state: 'CANCELLED', failure_reason: 'insufficient balance' });
    await settle(rs.transaction_id, { state: 'COMPLETED', on_chain_status: 'SUCCESS' });
    const get = async (id: string) =>
      (await env.call('GET', `/v1/transfer-requests/${id}`, { token: member.token })).json();
    assert.equal((await get(ra.id)).state, 'COMPLETED');
    const failed = await get(rb.id);
    assert.deepEqual([failed.state, failed.failure_reason], ['FAILED', 'insufficient balance']);
    assert.equal((await findItemRow(db(), a!.id)).held_supply, '6');
    assert.equal((await findItemRow(db(), b!.id)).held_supply, '10');
    assert.equal((await findItemRow(db(), self!.id)).held_supply, '10', 'sent to the wallet itself');
    const active = await db()
      .selectFrom('item_reservations')
      .select('id')
      .where('item_id', 'in', [a!.id, b!.id, self!.id])
      .where('released_at', 'is', null)
      .execute();
    assert.equal(active.length, 0);
    // The rest can move again.
    const again = await transfer({ item_id: a!.id, quantity: '6' });
    assert.equal(again.statusCode, 201, again.body);
  });

  it('lists with filters, gets one, and keeps other organizations out', async () => {
    const c = await collection();
    const [x] = await held(c, 1);
    const created = (await transfer({ item_id: x!.id })).json().transfer_requests[0];
    const list = await env.call('GET', '/v1/transfer-requests', {
      token: member.token,
      query: { collection_id: c.id, to_address: RECIPIENT.toLowerCase() },
    });
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(list.json().results, [created]);
    const byItem = await env.call('GET', '/v1/transfer-requests', {
      token: member.token,
      query: { item_id: uuidv7() },
    });
    assert.equal(byItem.json().total_results, 0);
    const got = await env.call('GET', `/v1/transfer-requests/${created.id}`, { token: member.token });
    assert.deepEqual(got.json(), created);
    const foreign = await env.call('GET', `/v1/transfer-requests/${created.id}`, { token: other.token });
    assert.equal(foreign.statusCode, 404);
    const foreignList = await env.call('GET', '/v1/transfer-requests', {
      token: other.token,
      query: { collection_id: c.id },
    });
    assert.equal(foreignList.json().total_results, 0);
  });
});
