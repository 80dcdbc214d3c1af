import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Address, getAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { assertError } from '../../../../../test/assertions.ts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { findItemRow, insertItems, untilSettled } from '../../../../../test/support/token-requests.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import type { CollectionRow, TokenType } from '../../../../db/schema.ts';

const erc721 = platformContracts.FlexibleERC721;
const erc1155 = platformContracts.FlexibleERC1155;
const RECIPIENT = privateKeyToAccount(`0x${'44'.repeat(32)}`).address;

interface RequestRecord {
  id: string;
  item_id: string;
  state: string;
  transaction_id: string;
  failure_reason: string | null;
}

describe('transfer requests on a real chain', () => {
  let flow: FlowTest;
  let orgWallet: Address;
  before(async () => {
    flow = await setupFlowTest();
    orgWallet = getAddress(flow.wallet.address);
  });
  after(() => flow.close());

  const db = () => flow.env.database.db;
  const deployer = () => flow.chain.wallet(0);
  const deployed = (kind: TokenType, admin?: Address) => flow.deployCollection(kind, admin ? { admin } : {});
  const items = (collection: CollectionRow, count: number, maxSupply = 1n) =>
    insertItems(db(), count, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
      maxSupply,
    });
  const post = async (path: 'mint-requests' | 'transfer-requests', body: Record<string, unknown>) => {
    const response = await flow.env.call('POST', `/v1/${path}`, { token: flow.admin.token, body });
    assert.equal(response.statusCode, 201, response.body);
    return response.json()[
      path === 'mint-requests' ? 'mint_requests' : 'transfer_requests'
    ] as RequestRecord[];
  };
  const settled = async (path: 'mint-requests' | 'transfer-requests', records: RequestRecord[]) =>
    Promise.all(
      records.map(
        async (r) =>
          (
            await untilSettled(flow.until, async () => {
              const response = await flow.env.call('GET', `/v1/${path}/${r.id}`, {
                token: flow.member.token,
              });
              return response.json() as RequestRecord;
            })
          ).request,
      ),
    );
  const ownerOf = (address: Address, tokenId: bigint) =>
    flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'ownerOf',
      args: [tokenId],
    });

  it('ERC721: items minted to the organization wallet move to a new owner, one batch for both', async () => {
    const { address, collection } = await deployed('ERC721');
    const two = await items(collection, 2);
    const minted = await settled(
      'mint-requests',
      await post('mint-requests', { collection_id: collection.id, to_address: orgWallet }),
    );
    assert.deepEqual(
      minted.map((r) => r.state),
      ['COMPLETED', 'COMPLETED'],
    );
    for (const item of two) assert.equal((await findItemRow(db(), item.id)).held_supply, '1');

    const records = await post('transfer-requests', {
      item_ids: two.map((i) => i.id),
      to_address: RECIPIENT,
    });
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 1);
    const done = await settled('transfer-requests', records);
    assert.deepEqual(
      done.map((r) => r.state),
      ['COMPLETED', 'COMPLETED'],
    );
    for (const item of two) {
      assert.equal(await ownerOf(address, BigInt(item.token_id!)), RECIPIENT);
      const row = await findItemRow(db(), item.id);
      assert.deepEqual([row.token_status, row.held_supply], ['MINTED', '0']);
    }
    // No longer held: a second transfer is refused.
    const again = await flow.env.call('POST', '/v1/transfer-requests', {
      token: flow.admin.token,
      body: { item_id: two[0]!.id, to_address: RECIPIENT },
    });
    assertError(again, 409, 'INVALID_STATE');
  });

  it('ERC1155: one safeBatchTransferFrom moves quantity units of each item', async () => {
    const { address, collection } = await deployed('ERC1155');
    const two = await items(collection, 2, 10n);
    await settled(
      'mint-requests',
      await post('mint-requests', { item_ids: two.map((i) => i.id), quantity: '10', to_address: orgWallet }),
    );
    const records = await post('transfer-requests', {
      collection_id: collection.id,
      quantity: '3',
      to_address: RECIPIENT,
    });
    assert.equal(records.length, 2);
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 1);
    assert.deepEqual(
      (await settled('transfer-requests', records)).map((r) => r.state),
      ['COMPLETED', 'COMPLETED'],
    );
    const ids = two.map((i) => BigInt(i.token_id!));
    const balances = await flow.chain.publicClient.readContract({
      address,
      abi: erc1155.abi,
      functionName: 'balanceOfBatch',
      args: [
        [RECIPIENT, RECIPIENT, orgWallet, orgWallet],
        [...ids, ...ids],
      ],
    });
    assert.deepEqual(balances, [3n, 3n, 7n, 7n]);
    for (const item of two) {
      const row = await findItemRow(db(), item.id);
      assert.deepEqual([row.minted_supply, row.held_supply], ['10', '7']);
    }
  });

  it('a transfer that cannot succeed on-chain fails the request and frees the item', async () => {
    // The service believes its wallet holds token 1, but it was minted to someone else outside it.
    const { address, collection } = await deployed('ERC721', deployer().account.address);
    await flow.chain.mined(
      deployer().writeContract({ address, abi: erc721.abi, functionName: 'mint', args: [RECIPIENT, 1n] }),
    );
    const [item] = await insertItems(db(), 1, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
      tokenStatus: 'MINTED',
      mintedSupply: 1n,
      heldSupply: 1n,
    });
    const [record] = await post('transfer-requests', { item_id: item!.id, to_address: orgWallet });
    const [failed] = await settled('transfer-requests', [record!]);
    assert.equal(failed!.state, 'FAILED');
    assert.ok(failed!.failure_reason);
    const row = await findItemRow(db(), item!.id);
    assert.equal(row.held_supply, '1', 'nothing moved');
    const active = await db()
      .selectFrom('item_reservations')
      .select('id')
      .where('item_id', '=', item!.id)
      .where('released_at', 'is', null)
      .execute();
    assert.equal(active.length, 0);
    assert.equal(await ownerOf(address, 1n), RECIPIENT);
  });
});
