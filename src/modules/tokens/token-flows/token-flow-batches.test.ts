import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Address, decodeFunctionData, getAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type FlowTest, setupFlowTest } from '../../../../test/chain/flow.ts';
import { freshIp } from '../../../../test/support/auth.ts';
import { claimClient, claimTokenFromMail, pinFromMail } from '../../../../test/support/email-claims.ts';
import { findItemRow, insertItems } from '../../../../test/support/token-requests.ts';
import { platformContracts } from '../../../chain/artifacts.ts';
import type { BatchConfig, CollectionRow } from '../../../db/schema.ts';
import { mapLimit } from '../../../lib/concurrency.ts';

/**
 * Deliveries batched across buyers on a real chain: records of several requests and claims ride
 * in one transaction, each keeps its own state; a batch that reverts fails each record; a worker
 * stopped between the broadcast and the settlement settles each record once when it is back.
 */

const erc721 = platformContracts.FlexibleERC721;
const fresh = (): Address => privateKeyToAccount(generatePrivateKey()).address;

interface MintRecord {
  id: string;
  item_id: string;
  state: string;
  transaction_id: string;
  failure_reason: string | null;
}

describe('token flow batches on a real chain', () => {
  let flow: FlowTest;
  before(async () => {
    flow = await setupFlowTest();
  });
  after(() => flow.close());

  const db = () => flow.env.database.db;
  const rpc = (method: string, params: unknown[] = []) =>
    flow.chain.publicClient.request({ method: method as never, params: params as never });
  const setBatch = (batch: Partial<BatchConfig>) =>
    flow.env.call('PATCH', `/v1/networks/${flow.networkId}`, {
      token: flow.env.platformAdmin.token,
      body: { config: { batch } },
    });
  const items = (collection: CollectionRow, count: number, firstTokenId = 1n) =>
    insertItems(db(), count, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId,
    });
  const mint = async (body: Record<string, unknown>) => {
    const response = await flow.env.call('POST', '/v1/mint-requests', { token: flow.admin.token, body });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().mint_requests as MintRecord[];
  };
  const records = (ids: string[]) =>
    db().selectFrom('mint_requests').selectAll().where('id', 'in', ids).orderBy('created_at').execute();
  const untilClosed = (ids: string[]) =>
    flow.until(async () => {
      const rows = await records(ids);
      return rows.every((r) => r.state === 'COMPLETED' || r.state === 'FAILED') ? rows : undefined;
    }, 'the records to settle');
  const transaction = (id: string) =>
    db().selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const ownerOf = (address: Address, tokenId: bigint) =>
    flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'ownerOf',
      args: [tokenId],
    });

  it('mint requests and an email claim share one batch; each record settles as its own', async () => {
    assert.equal((await setBatch({ windowMs: 4000 })).statusCode, 200);
    try {
      const { address, collection } = await flow.deployCollection('ERC721');
      const five = await items(collection, 5);
      const [r1, r2, r3] = [fresh(), fresh(), fresh()];
      // The claim's link and PIN first (mails take their time); its redemption opens the batch.
      const email = 'batch-claim@example.com';
      const created = await flow.env.call('POST', '/v1/email-claims', {
        token: flow.admin.token,
        body: { email, item_id: five[3]!.id, quantity: 1 },
      });
      assert.equal(created.statusCode, 201, created.body);
      const client = claimClient(flow.env, freshIp);
      const token = await claimTokenFromMail(flow.env, email);
      assert.equal((await client.verify(token)).statusCode, 200);
      const pin = await pinFromMail(flow.env, email);
      const redeemed = await client.redeem(token, { address: r3, pin });
      assert.equal(redeemed.statusCode, 200, redeemed.body);
      const claimTransaction = redeemed.json().transaction_id as string;
      const a = await mint({ item_ids: [five[0]!.id, five[1]!.id], to_address: r1 });
      const b = await mint({ item_id: five[2]!.id, to_address: r2 });

      const all = [...a, ...b];
      assert.deepEqual(
        new Set([...all.map((r) => r.transaction_id), claimTransaction]).size,
        1,
        'one transaction for the requests and the claim',
      );
      const closed = await untilClosed(all.map((r) => r.id));
      assert.deepEqual(
        closed.map((r) => r.state),
        ['COMPLETED', 'COMPLETED', 'COMPLETED'],
      );
      const row = await transaction(claimTransaction);
      assert.equal(row.on_chain_status, 'SUCCESS');
      assert.equal(row.batch_size, 4);
      const call = decodeFunctionData({ abi: erc721.abi, data: row.data as Hex });
      assert.equal(call.functionName, 'mintBatch');
      assert.deepEqual(call.args, [
        [r3, r1, r1, r2],
        [4n, 1n, 2n, 3n],
      ]);
      for (const [tokenId, owner] of [
        [1n, r1],
        [2n, r1],
        [3n, r2],
        [4n, r3],
      ] as const)
        assert.equal(await ownerOf(address, tokenId), getAddress(owner));
      const claim = await flow.until(async () => {
        const got = (await client.get(token)).json();
        return got.delivery?.state === 'COMPLETED' ? got : undefined;
      }, 'the claim delivered');
      assert.equal(claim.delivery.tx_hash, row.tx_hash);
      assert.equal((await findItemRow(db(), five[4]!.id)).token_status, 'NOT_MINTED', 'not asked for');
    } finally {
      await setBatch({ windowMs: 1000 });
    }
  });

  it('a worker stopped between the broadcast and the settlement settles each record once when back', async () => {
    const { address, collection } = await flow.deployCollection('ERC721');
    const three = await items(collection, 3);
    const recipients = [fresh(), fresh(), fresh()];
    assert.equal((await setBatch({ windowMs: 4000 })).statusCode, 200);
    const all: MintRecord[] = [];
    for (const [i, item] of three.entries())
      all.push(...(await mint({ item_id: item.id, to_address: recipients[i] })));
    await setBatch({ windowMs: 1000 });
    const transactionId = all[0]!.transaction_id;
    assert.ok(
      all.every((r) => r.transaction_id === transactionId),
      'one batch',
    );
    await rpc('evm_setIntervalMining', [0]);
    try {
      await flow.until(
        async () => ((await transaction(transactionId)).state === 'SUBMITTED' ? true : undefined),
        'the batch broadcast',
      );
      await flow.restartWorker(async () => {
        await rpc('evm_mine');
        const open = await records(all.map((r) => r.id));
        assert.deepEqual(
          open.map((r) => r.state),
          ['PENDING', 'PENDING', 'PENDING'],
          'mined, nothing settled while the worker is away',
        );
        assert.equal((await findItemRow(db(), three[0]!.id)).token_status, 'MINTING');
      });
    } finally {
      await rpc('evm_setIntervalMining', [1]);
    }
    const closed = await untilClosed(all.map((r) => r.id));
    assert.deepEqual(
      closed.map((r) => r.state),
      ['COMPLETED', 'COMPLETED', 'COMPLETED'],
    );
    for (const [i, item] of three.entries()) {
      assert.equal(await ownerOf(address, BigInt(item.token_id!)), recipients[i]);
      const row = await findItemRow(db(), item.id);
      assert.deepEqual([row.token_status, row.minted_supply], ['MINTED', '1'], 'minted once');
    }
  });

  it('1,000 single-item mint requests to 1,000 addresses at once: a transaction per 50 items at most, 0.65× the gas of a single mint per item', async (t) => {
    const deployer = flow.chain.wallet(0);
    const { address, collection } = await flow.deployCollection('ERC721', {
      admin: deployer.account.address,
    });
    const minterRole = await flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'MINTER_ROLE',
    });
    await flow.chain.mined(
      deployer.writeContract({
        address,
        abi: erc721.abi,
        functionName: 'grantRole',
        args: [minterRole, getAddress(flow.wallet.address)],
      }),
    );
    // A typical single mint: to a new holder, not the collection's first.
    await flow.chain.mined(
      deployer.writeContract({ address, abi: erc721.abi, functionName: 'mint', args: [fresh(), 5001n] }),
    );
    const single = await flow.chain.mined(
      deployer.writeContract({ address, abi: erc721.abi, functionName: 'mint', args: [fresh(), 5002n] }),
    );
    const thousand = await items(collection, 1000);
    // Batches close when full while the requests come in, the rest once the window is back.
    assert.equal((await setBatch({ windowMs: 600_000 })).statusCode, 200);
    let all: MintRecord[];
    try {
      // At once as the test's pool allows: 50 in flight, the rest waiting their turn.
      all = (await mapLimit(thousand, 50, (item) => mint({ item_id: item.id, to_address: fresh() }))).flat();
    } finally {
      await setBatch({ windowMs: 1000 });
    }
    const transactionIds = [...new Set(all.map((r) => r.transaction_id))];
    const settled = await flow.settled(transactionIds, 120_000);
    const closed = await untilClosed(all.map((r) => r.id));
    assert.ok(closed.every((r) => r.state === 'COMPLETED'));
    const gas = settled.reduce((sum, row) => sum + BigInt(row.gas_used!), 0n);
    const perItem = Number(gas) / 1000;
    t.diagnostic(
      `${transactionIds.length} transactions, ${perItem} gas per item, ${single.gasUsed} for a single mint: ${(perItem / Number(single.gasUsed)).toFixed(3)}×`,
    );
    assert.ok(transactionIds.length <= 20, `${transactionIds.length} transactions for 1,000 items`);
    assert.ok(perItem <= 0.65 * Number(single.gasUsed), `${perItem} gas per item`);
    assert.equal(
      await ownerOf(address, BigInt(thousand[999]!.token_id!)),
      closed.at(-1) && getAddress(closed.find((r) => r.item_id === thousand[999]!.id)!.to_address),
    );
  });

  it('a batch that reverts on chain fails each of its records; their items mint again', async () => {
    const deployer = flow.chain.wallet(0);
    const { address, collection } = await flow.deployCollection('ERC721', {
      admin: deployer.account.address,
    });
    const minterRole = await flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'MINTER_ROLE',
    });
    const orgWallet = getAddress(flow.wallet.address);
    const grant = () =>
      flow.chain.mined(
        deployer.writeContract({
          address,
          abi: erc721.abi,
          functionName: 'grantRole',
          args: [minterRole, orgWallet],
        }),
      );
    await grant();
    const two = await items(collection, 2);
    assert.equal((await setBatch({ windowMs: 4000 })).statusCode, 200);
    const all = [
      ...(await mint({ item_id: two[0]!.id, to_address: fresh() })),
      ...(await mint({ item_id: two[1]!.id, to_address: fresh() })),
    ];
    await setBatch({ windowMs: 1000 });
    const transactionId = all[0]!.transaction_id;
    assert.equal(all[1]!.transaction_id, transactionId, 'one batch');
    await rpc('evm_setIntervalMining', [0]);
    try {
      // Estimated and broadcast while the wallet may mint; the role is revoked in the same block,
      // ahead of it (a higher tip), so the batch reverts on chain.
      await flow.until(
        async () => ((await transaction(transactionId)).state === 'SUBMITTED' ? true : undefined),
        'the batch broadcast',
      );
      await deployer.writeContract({
        address,
        abi: erc721.abi,
        functionName: 'revokeRole',
        args: [minterRole, orgWallet],
        maxPriorityFeePerGas: 10n ** 12n,
        maxFeePerGas: 10n ** 13n,
      });
      await rpc('evm_mine');
    } finally {
      await rpc('evm_setIntervalMining', [1]);
    }
    const closed = await untilClosed(all.map((r) => r.id));
    assert.equal((await transaction(transactionId)).on_chain_status, 'FAILURE');
    assert.deepEqual(
      closed.map((r) => [r.state, r.failure_reason]),
      [
        ['FAILED', 'reverted on chain'],
        ['FAILED', 'reverted on chain'],
      ],
    );
    for (const item of two) assert.equal((await findItemRow(db(), item.id)).token_status, 'NOT_MINTED');
    await grant();
    const again = await mint({ item_ids: two.map((i) => i.id), to_address: fresh() });
    assert.deepEqual(
      (await untilClosed(again.map((r) => r.id))).map((r) => r.state),
      ['COMPLETED', 'COMPLETED'],
    );
  });
});
