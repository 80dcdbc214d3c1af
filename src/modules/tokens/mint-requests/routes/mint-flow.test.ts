import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Address, getAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { findItemRow, insertItems, untilSettled } from '../../../../../test/support/token-requests.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import type { CollectionRow } from '../../../../db/schema.ts';

const erc721 = platformContracts.FlexibleERC721;
const erc1155 = platformContracts.FlexibleERC1155;
const RECIPIENT = privateKeyToAccount(`0x${'22'.repeat(32)}`).address;

interface MintRecord {
  id: string;
  item_id: string;
  state: string;
  tx_hash: string | null;
  transaction_id: string;
  token_id: string | null;
  failure_reason: string | null;
}

describe('mint requests on a real chain', () => {
  let flow: FlowTest;
  let orgWallet: Address;
  before(async () => {
    flow = await setupFlowTest();
    orgWallet = getAddress(flow.wallet.address);
  });
  after(() => flow.close());

  const db = () => flow.env.database.db;
  const deployer = () => flow.chain.wallet(0);

  const deployed: FlowTest['deployCollection'] = (kind, options) => flow.deployCollection(kind, options);
  const items = (
    collection: CollectionRow,
    count: number,
    fields: { maxSupply?: bigint; firstTokenId?: bigint | null } = {},
  ) =>
    insertItems(db(), count, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: fields.firstTokenId === undefined ? 1n : fields.firstTokenId,
      ...(fields.maxSupply !== undefined && { maxSupply: fields.maxSupply }),
    });
  const mint = async (body: Record<string, unknown>) => {
    const response = await flow.env.call('POST', '/v1/mint-requests', { token: flow.admin.token, body });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().mint_requests as MintRecord[];
  };
  const get = async (id: string) => {
    const response = await flow.env.call('GET', `/v1/mint-requests/${id}`, { token: flow.member.token });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as MintRecord;
  };
  const settledAll = (records: MintRecord[]) =>
    Promise.all(records.map((r) => untilSettled(flow.until, () => get(r.id))));
  const ownerOf = (address: Address, tokenId: bigint) =>
    flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'ownerOf',
      args: [tokenId],
    });
  const activeReservations = async (itemIds: string[]) =>
    (
      await db()
        .selectFrom('item_reservations')
        .select('id')
        .where('item_id', 'in', itemIds)
        .where('released_at', 'is', null)
        .execute()
    ).length;

  it('ERC721 batch: one transaction mints every item; the request goes PENDING → SUBMITTED → COMPLETED', async () => {
    const { address, collection } = await deployed('ERC721');
    const three = await items(collection, 3);
    const records = await mint({ item_ids: three.map((i) => i.id), to_address: RECIPIENT });
    assert.equal(records.length, 3);
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 1);
    assert.deepEqual(
      records.map((r) => [r.state, r.tx_hash]),
      records.map(() => ['PENDING', null]),
    );
    const results = await settledAll(records);
    for (const { request, seen } of results) {
      assert.equal(request.state, 'COMPLETED');
      assert.match(request.tx_hash!, /^0x[0-9a-f]{64}$/);
      // Never backwards; SUBMITTED may fall between two polls.
      const order = ['PENDING', 'SUBMITTED', 'COMPLETED'];
      assert.deepEqual(
        seen,
        [...seen].sort((a, b) => order.indexOf(a) - order.indexOf(b)),
      );
    }
    for (const item of three) {
      assert.equal(await ownerOf(address, BigInt(item.token_id!)), RECIPIENT);
      const row = await findItemRow(db(), item.id);
      assert.deepEqual([row.token_status, row.minted_supply, row.held_supply], ['MINTED', '1', '0']);
    }
    assert.equal(await activeReservations(three.map((i) => i.id)), 0);
    const again = await flow.env.call('POST', '/v1/mint-requests', {
      token: flow.admin.token,
      body: { item_id: three[0]!.id, to_address: RECIPIENT },
    });
    assert.equal(again.json().error.code, 'ITEM_ALREADY_MINTED');
  });

  it('a contract known for single mints only: one transaction per item, minted to the organization wallet', async () => {
    const { address, collection } = await deployed('ERC721', {
      capabilities: ['ERC721', 'ADMIN_MINT_SINGLE'],
    });
    const two = await items(collection, 2);
    const records = await mint({ collection_id: collection.id, to_address: orgWallet.toLowerCase() });
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 2);
    await settledAll(records);
    for (const item of two) {
      assert.equal(await ownerOf(address, BigInt(item.token_id!)), orgWallet);
      const row = await findItemRow(db(), item.id);
      assert.deepEqual(
        [row.token_status, row.held_supply],
        ['MINTED', '1'],
        'held by the organization wallet',
      );
    }
  });

  it('EXTERNAL token ids: mintBatchNoId, the ids read from the Transfer events in creation order', async () => {
    const { address, collection } = await deployed('ERC721', {
      admin: deployer().account.address,
      strategy: 'EXTERNAL',
    });
    const minter = await flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'MINTER_ROLE',
    });
    await flow.chain.mined(
      deployer().writeContract({
        address,
        abi: erc721.abi,
        functionName: 'grantRole',
        args: [minter, orgWallet],
      }),
    );
    // Id 1 is taken outside the service: the contract skips it.
    await flow.chain.mined(
      deployer().writeContract({
        address,
        abi: erc721.abi,
        functionName: 'mint',
        args: [deployer().account.address, 1n],
      }),
    );
    const two = await items(collection, 2, { firstTokenId: null });
    const records = await mint({ collection_id: collection.id, to_address: RECIPIENT });
    assert.equal(records.length, 2);
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 1);
    assert.deepEqual(
      records.map((r) => r.token_id),
      [null, null],
    );
    const settled = await settledAll(records);
    assert.deepEqual(
      settled.map((s) => [s.request.item_id, s.request.token_id]),
      [
        [two[0]!.id, '2'],
        [two[1]!.id, '3'],
      ],
    );
    for (const [i, item] of two.entries()) {
      const row = await findItemRow(db(), item.id);
      assert.deepEqual([row.token_id, row.token_status], [String(i + 2), 'MINTED']);
      assert.equal(await ownerOf(address, BigInt(i + 2)), RECIPIENT);
    }
  });

  it('ERC1155: one mintBatch with the quantity of each item; supply and balances follow', async () => {
    const { address, collection } = await deployed('ERC1155');
    const two = await items(collection, 2, { maxSupply: 10n });
    const records = await mint({ item_ids: two.map((i) => i.id), quantity: '4', to_address: orgWallet });
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 1);
    await settledAll(records);
    const balances = await flow.chain.publicClient.readContract({
      address,
      abi: erc1155.abi,
      functionName: 'balanceOfBatch',
      args: [[orgWallet, orgWallet], two.map((i) => BigInt(i.token_id!))],
    });
    assert.deepEqual(balances, [4n, 4n]);
    for (const item of two) {
      const row = await findItemRow(db(), item.id);
      assert.deepEqual([row.token_status, row.minted_supply, row.held_supply], ['MINTED', '4', '4']);
    }
    // 6 units left each: 7 is too many, 6 is fine.
    const tooMany = await flow.env.call('POST', '/v1/mint-requests', {
      token: flow.admin.token,
      body: { item_id: two[0]!.id, quantity: '7', to_address: RECIPIENT },
    });
    assert.equal(tooMany.json().error.code, 'INSUFFICIENT_SUPPLY');
    const rest = await mint({ item_id: two[0]!.id, quantity: '6', to_address: RECIPIENT });
    await settledAll(rest);
    const row = await findItemRow(db(), two[0]!.id);
    assert.deepEqual([row.minted_supply, row.held_supply], ['10', '4']);
  });

  it('a mint that reverts fails the request, frees the item, and the item mints once the cause is gone', async () => {
    // The organization wallet is not a minter of this contract yet: gas estimation reverts.
    const { address, collection } = await deployed('ERC721', { admin: deployer().account.address });
    const [item] = await items(collection, 1);
    const [failed] = await mint({ item_id: item!.id, to_address: RECIPIENT });
    const { request } = (await settledAll([failed!]))[0]!;
    assert.equal(request.state, 'FAILED');
    assert.ok(request.failure_reason && request.failure_reason.length > 0, 'a reason');
    const row = await findItemRow(db(), item!.id);
    assert.deepEqual([row.token_status, row.minted_supply], ['NOT_MINTED', '0']);
    assert.equal(await activeReservations([item!.id]), 0);

    const minter = await flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'MINTER_ROLE',
    });
    await flow.chain.mined(
      deployer().writeContract({
        address,
        abi: erc721.abi,
        functionName: 'grantRole',
        args: [minter, orgWallet],
      }),
    );
    const [retry] = await mint({ item_id: item!.id, to_address: RECIPIENT });
    assert.equal((await settledAll([retry!]))[0]!.request.state, 'COMPLETED');
    assert.equal(await ownerOf(address, BigInt(item!.token_id!)), RECIPIENT);
    // The failed record stays FAILED.
    assert.equal((await get(failed!.id)).state, 'FAILED');
  });

  it('an id already minted outside the service: its entry leaves the batch before it is sent, the other mints', async () => {
    const { address, collection } = await deployed('ERC721', { admin: deployer().account.address });
    const minter = await flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'MINTER_ROLE',
    });
    await flow.chain.mined(
      deployer().writeContract({
        address,
        abi: erc721.abi,
        functionName: 'grantRole',
        args: [minter, orgWallet],
      }),
    );
    const two = await items(collection, 2);
    await flow.chain.mined(
      deployer().writeContract({ address, abi: erc721.abi, functionName: 'mint', args: [RECIPIENT, 2n] }),
    );
    const records = await mint({ collection_id: collection.id, to_address: RECIPIENT });
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 1, 'one batch');
    const results = await settledAll(records);
    assert.deepEqual(
      results.map((r) => r.request.state),
      ['COMPLETED', 'FAILED'],
    );
    assert.match(results[1]!.request.failure_reason ?? '', /revert/);
    assert.equal(await ownerOf(address, 1n), RECIPIENT);
    assert.deepEqual(
      [
        (await findItemRow(db(), two[0]!.id)).token_status,
        (await findItemRow(db(), two[1]!.id)).token_status,
      ],
      ['MINTED', 'NOT_MINTED'],
      'the item minted outside stays mintable as far as the service knows',
    );
    assert.equal(await activeReservations(two.map((i) => i.id)), 0);
  });
});
