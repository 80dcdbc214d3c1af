import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Address, getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { freshIp, mailsTo } from '../../../../../test/support/auth.ts';
import { claimClient, claimTokenFromMail, pinFromMail } from '../../../../../test/support/email-claims.ts';
import { findItemRow, insertItems } from '../../../../../test/support/token-requests.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import type { CollectionRow } from '../../../../db/schema.ts';

const erc721 = platformContracts.FlexibleERC721;
const erc1155 = platformContracts.FlexibleERC1155;

describe('email claims on a real chain: link, PIN, redeem, delivery', () => {
  let flow: FlowTest;
  let orgWallet: Address;
  let mails = 0;
  before(async () => {
    flow = await setupFlowTest();
    orgWallet = getAddress(flow.wallet.address);
  });
  after(() => flow.close());

  const db = () => flow.env.database.db;
  const client = () => claimClient(flow.env, freshIp);
  const items = (collection: CollectionRow, count: number, maxSupply = 1n) =>
    insertItems(db(), count, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
      maxSupply,
    });

  /** The recipient's whole journey: link from the mail, PIN, redeem, delivery followed to COMPLETED. */
  const claimOnChain = async (itemId: string, quantity: number) => {
    const email = `chain-${++mails}@example.com`;
    const created = await flow.env.call('POST', '/v1/email-claims', {
      token: flow.admin.token,
      body: { email, item_id: itemId, quantity },
    });
    assert.equal(created.statusCode, 201, created.body);
    const token = await claimTokenFromMail(flow.env, email);
    assert.equal((await client().get(token)).json().status, 'ACTIVE');
    const verified = await client().verify(token);
    assert.equal(verified.statusCode, 200, verified.body);
    const pin = await pinFromMail(flow.env, email);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const redeemed = await client().redeem(token, { address: recipient, pin });
    assert.equal(redeemed.statusCode, 200, redeemed.body);
    const transactionId = redeemed.json().transaction_id as string;
    // Follow it as the claim page does, through the public view only.
    const seen: string[] = [];
    const view = await flow.until(async () => {
      const current = (await client().get(token)).json();
      const state = current.delivery?.state as string;
      if (seen.at(-1) !== state) seen.push(state);
      return state === 'COMPLETED' || state === 'FAILED' ? current : undefined;
    }, 'the claim delivery to settle');
    assert.equal(view.status, 'CLAIMED');
    assert.equal(view.delivery.state, 'COMPLETED', JSON.stringify(view));
    assert.equal(view.delivery.transaction_id, transactionId);
    assert.equal(view.delivery.to_address, recipient);
    assert.match(view.delivery.tx_hash, /^0x[0-9a-f]{64}$/);
    const order = ['PENDING', 'SUBMITTED', 'COMPLETED'];
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => order.indexOf(a) - order.indexOf(b)),
      'never backwards',
    );
    const got = await flow.env.call('GET', `/v1/email-claims/${created.json().id}`, {
      token: flow.member.token,
    });
    assert.equal(got.json().tx_hash, view.delivery.tx_hash);
    assert.equal(got.json().claimed, true);
    // CLAIMED_NFT queued once (the settlement job has committed: the view shows COMPLETED).
    await sleep(300);
    const claimedMails = await mailsTo(flow.env, email, 'CLAIMED_NFT');
    assert.equal(claimedMails.length, 1);
    assert.ok(claimedMails[0]!.text.includes(recipient));
    assert.ok(claimedMails[0]!.text.includes(view.delivery.tx_hash));
    return { recipient, view };
  };

  it('ERC721 not minted: the claim mints the token to the recipient', async () => {
    const { address, collection } = await flow.deployCollection('ERC721');
    const [item] = await items(collection, 1);
    const { recipient, view } = await claimOnChain(item!.id, 1);
    assert.equal(view.delivery.contract_address, getAddress(address), 'checksummed');
    assert.equal(view.delivery.network_id, flow.networkId);
    const owner = await flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'ownerOf',
      args: [BigInt(item!.token_id!)],
    });
    assert.equal(owner, recipient);
    const row = await findItemRow(db(), item!.id);
    assert.deepEqual([row.token_status, row.minted_supply, row.held_supply], ['MINTED', '1', '0']);
    const reservations = await db()
      .selectFrom('item_reservations')
      .select('id')
      .where('item_id', '=', item!.id)
      .where('released_at', 'is', null)
      .execute();
    assert.equal(reservations.length, 0, 'the item is free of every hold');
  });

  it('ERC721 minted and held by the organization wallet: the claim transfers it', async () => {
    const { address, collection } = await flow.deployCollection('ERC721');
    const [item] = await items(collection, 1);
    const minted = await flow.env.call('POST', '/v1/mint-requests', {
      token: flow.admin.token,
      body: { item_id: item!.id, to_address: orgWallet },
    });
    assert.equal(minted.statusCode, 201, minted.body);
    await flow.settled([minted.json().mint_requests[0].transaction_id]);
    await flow.until(
      async () => ((await findItemRow(db(), item!.id)).held_supply === '1' ? true : undefined),
      'the mint to the wallet to settle',
    );
    const { recipient } = await claimOnChain(item!.id, 1);
    const owner = await flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'ownerOf',
      args: [BigInt(item!.token_id!)],
    });
    assert.equal(owner, recipient);
    const transfers = await db()
      .selectFrom('transfer_requests')
      .selectAll()
      .where('item_id', '=', item!.id)
      .execute();
    assert.deepEqual(
      transfers.map((t) => t.state),
      ['COMPLETED'],
    );
    assert.equal((await findItemRow(db(), item!.id)).held_supply, '0');
  });

  it('ERC1155: the claimed quantity is minted to the recipient', async () => {
    const { address, collection } = await flow.deployCollection('ERC1155');
    const [item] = await items(collection, 1, 10n);
    const { recipient } = await claimOnChain(item!.id, 4);
    const balance = await flow.chain.publicClient.readContract({
      address,
      abi: erc1155.abi,
      functionName: 'balanceOf',
      args: [recipient, BigInt(item!.token_id!)],
    });
    assert.equal(balance, 4n);
    const row = await findItemRow(db(), item!.id);
    assert.deepEqual([row.token_status, row.minted_supply], ['MINTED', '4']);
  });

  it('a delivery that reverts reopens the claim, its item held for it and never minted twice', async () => {
    const deployer = flow.chain.wallet(0);
    const { address, collection } = await flow.deployCollection('ERC721', {
      admin: deployer.account.address,
    });
    const minter = await flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'MINTER_ROLE',
    });
    await flow.chain.mined(
      deployer.writeContract({
        address,
        abi: erc721.abi,
        functionName: 'grantRole',
        args: [minter, orgWallet],
      }),
    );
    const [item] = await items(collection, 1);
    // The token id is taken on chain outside the service: the claim's mint must revert.
    await flow.chain.mined(
      deployer.writeContract({
        address,
        abi: erc721.abi,
        functionName: 'mint',
        args: [deployer.account.address, BigInt(item!.token_id!)],
      }),
    );
    const email = `chain-${++mails}@example.com`;
    const created = await flow.env.call('POST', '/v1/email-claims', {
      token: flow.admin.token,
      body: { email, item_id: item!.id, quantity: 1 },
    });
    assert.equal(created.statusCode, 201, created.body);
    const token = await claimTokenFromMail(flow.env, email);
    await client().verify(token);
    const pin = await pinFromMail(flow.env, email);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const redeemed = await client().redeem(token, { address: recipient, pin });
    assert.equal(redeemed.statusCode, 200, redeemed.body);
    const view = await flow.until(async () => {
      const current = (await client().get(token)).json();
      return current.delivery?.state === 'FAILED' ? current : undefined;
    }, 'the delivery to fail');
    assert.equal(view.status, 'ACTIVE', 'reopened: the recipient may try again, or the organization revoke');
    assert.equal(view.pin, null, 'a new PIN is needed');
    const reservation = await db()
      .selectFrom('item_reservations')
      .selectAll()
      .where('item_id', '=', item!.id)
      .where('released_at', 'is', null)
      .executeTakeFirstOrThrow();
    assert.deepEqual([reservation.kind, reservation.holder_id], ['EMAIL_CLAIM', created.json().id]);
    assert.equal((await findItemRow(db(), item!.id)).token_status, 'NOT_MINTED');
    assert.equal((await mailsTo(flow.env, email, 'CLAIMED_NFT')).length, 0);
    const revoked = await flow.env.call('POST', `/v1/email-claims/${created.json().id}/revoke`, {
      token: flow.admin.token,
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    const free = await db()
      .selectFrom('item_reservations')
      .select('id')
      .where('item_id', '=', item!.id)
      .where('released_at', 'is', null)
      .execute();
    assert.equal(free.length, 0);
  });
});
