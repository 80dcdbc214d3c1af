import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Address, getAddress, type Hex, zeroAddress } from 'viem';
import { assertError } from '../../../../../test/assertions.ts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { freshIp, mailsTo } from '../../../../../test/support/auth.ts';
import { claimClient, claimTokenFromMail, pinFromMail } from '../../../../../test/support/email-claims.ts';
import { findItemRow, insertItems } from '../../../../../test/support/token-requests.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import type { CollectionRow } from '../../../../db/schema.ts';
import type { MintVoucherData } from '../../../tokens/mint-vouchers/mint-vouchers.schemas.ts';
import { watchNetworkVouchers } from '../../../tokens/mint-vouchers/voucher-watch.service.ts';

const signatureErc721 = platformContracts.SignatureERC721;

describe('email claims with tx_payer BUYER: the recipient mints with a voucher', () => {
  let flow: FlowTest;
  let address: Address;
  let collection: CollectionRow;
  let mails = 0;
  let nextTokenId = 1n;
  before(async () => {
    flow = await setupFlowTest();
    ({ address, collection } = await flow.deployCollection('ERC721', { variant: 'SignatureERC721' }));
  });
  after(() => flow.close());

  const db = () => flow.env.database.db;
  const client = () => claimClient(flow.env, freshIp);
  const item = async (target = collection) => {
    const [row] = await insertItems(db(), 1, {
      collectionId: target.id,
      organizationId: flow.organizationId,
      firstTokenId: nextTokenId++,
    });
    return row!;
  };
  const create = (body: Record<string, unknown>) =>
    flow.env.call('POST', '/v1/email-claims', {
      token: flow.admin.token,
      body: { email: `buyer-${++mails}@example.com`, quantity: 1, tx_payer: 'BUYER', ...body },
    });
  const activeReservations = (itemId: string) =>
    db()
      .selectFrom('item_reservations')
      .selectAll()
      .where('item_id', '=', itemId)
      .where('released_at', 'is', null)
      .execute();

  /** Creates a BUYER claim and takes it to a redeem with the mailed PIN. */
  const redeemed = async (itemId: string, recipient: Address, expiration?: Date) => {
    const created = await create({
      item_id: itemId,
      ...(expiration && { expiration: expiration.toISOString() }),
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().tx_payer, 'BUYER');
    const email = created.json().email as string;
    const token = await claimTokenFromMail(flow.env, email);
    assert.equal((await client().verify(token)).statusCode, 200);
    const pin = await pinFromMail(flow.env, email);
    const answer = await client().redeem(token, { address: recipient.toLowerCase(), pin });
    return { claimId: created.json().id as string, email, token, answer };
  };

  const mintWith = (recipient: number, voucher: MintVoucherData) =>
    flow.chain.wallet(recipient).writeContract({
      address,
      abi: signatureErc721.abi,
      functionName: 'mintWithVoucher',
      args: [
        {
          minter: getAddress(voucher.minter),
          tokenId: BigInt(voucher.voucher.token_id),
          quantity: BigInt(voucher.voucher.quantity),
          price: BigInt(voucher.voucher.price),
          currency: getAddress(voucher.voucher.currency),
          netRecipient: getAddress(voucher.voucher.net_recipient),
          feeRecipient: getAddress(voucher.voucher.initial_recipient),
          feeAmount: BigInt(voucher.voucher.initial_recipient_amount),
          nonce: BigInt(voucher.voucher.nonce),
          expiry: BigInt(voucher.voucher.expiry),
        },
        voucher.signature as Hex,
      ],
    });

  it('create → PIN → redeem answers a free voucher → the recipient mints → the claim is delivered once', async () => {
    const recipient = flow.chain.wallet(7).account.address;
    const target = await item();
    const { claimId, email, token, answer } = await redeemed(target.id, recipient);
    assert.equal(answer.statusCode, 200, answer.body);
    const body = answer.json();
    assert.equal(body.status, 'CLAIMED');
    assert.equal(body.transaction_id, null);
    const voucher = body.voucher;
    assert.equal(voucher.contract, getAddress(address));
    assert.equal(voucher.minter, recipient);
    assert.equal(voucher.network_id, flow.networkId);
    assert.equal(voucher.status, 'PENDING');
    assert.equal(voucher.voucher.price, '0', 'the seller gives it away: the recipient pays only gas');
    assert.equal(voucher.voucher.initial_recipient_amount, '0');
    assert.equal(voucher.voucher.currency, zeroAddress);
    assert.equal(voucher.voucher.token_id, target.token_id);
    const admin = await flow.env.call('GET', `/v1/email-claims/${claimId}`, { token: flow.member.token });
    assert.equal(admin.json().voucher_id, voucher.id);
    assert.equal(admin.json().claimed, true);
    const view = (await client().get(token)).json();
    assert.equal(view.status, 'CLAIMED');
    assert.deepEqual(view.voucher, voucher, 'the claim page shows the voucher to mint with');
    assert.equal(view.delivery, null);
    assert.equal((await activeReservations(target.id))[0]?.holder_id, claimId, 'still held for the claim');

    const receipt = await flow.chain.mined(mintWith(7, voucher));
    const settled = await flow.until(async () => {
      const current = (await client().get(token)).json();
      return current.voucher?.status === 'REDEEMED' ? current : undefined;
    }, 'the voucher to be seen redeemed');
    assert.equal(settled.voucher.tx_hash, receipt.transactionHash);
    const owner = await flow.chain.publicClient.readContract({
      address,
      abi: signatureErc721.abi,
      functionName: 'ownerOf',
      args: [BigInt(target.token_id!)],
    });
    assert.equal(owner, recipient);
    const row = await findItemRow(db(), target.id);
    assert.deepEqual([row.token_status, row.minted_supply, row.held_supply], ['MINTED', '1', '0']);
    assert.deepEqual(await activeReservations(target.id), [], 'the item is free of every hold');
    const got = await flow.env.call('GET', `/v1/email-claims/${claimId}`, { token: flow.member.token });
    assert.equal(got.json().tx_hash, receipt.transactionHash);
    // Watching again changes nothing and mails nothing more.
    await watchNetworkVouchers(db(), flow.env.ctx, flow.env.ctx.ports.voucherHolders, flow.networkId);
    await sleep(200);
    const claimedMails = await mailsTo(flow.env, email, 'CLAIMED_NFT');
    assert.equal(claimedMails.length, 1);
    assert.ok(claimedMails[0]!.text.includes(recipient));
    assert.ok(claimedMails[0]!.text.includes(receipt.transactionHash));
    assertError(await client().redeem(token, { address: recipient, pin: '000000' }), 409, 'INVALID_STATE');
  });

  it('create refuses a contract without MINT_VOUCHER (422) and a minted item (409)', async () => {
    const flexible = await flow.deployCollection('ERC721');
    const [plain] = await insertItems(db(), 1, {
      collectionId: flexible.collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    assertError(await create({ item_id: plain!.id }), 422, 'MISSING_MINT_CAPABILITY');
    const minted = await item();
    await db()
      .updateTable('items')
      .set({ token_status: 'MINTED', minted_supply: '1', held_supply: '1' })
      .where('id', '=', minted.id)
      .execute();
    assertError(await create({ item_id: minted.id }), 409, 'ITEM_ALREADY_MINTED');
    assert.deepEqual(await activeReservations(minted.id), []);
  });

  it('a recipient with a pending voucher on the contract cannot redeem another claim to it (409), the claim stays open', async () => {
    const recipient = flow.chain.wallet(8).account.address;
    const first = await redeemed((await item()).id, recipient);
    assert.equal(first.answer.statusCode, 200, first.answer.body);
    const second = await redeemed((await item()).id, recipient);
    assertError(second.answer, 409, 'INVALID_STATE');
    assert.equal((await client().get(second.token)).json().status, 'ACTIVE');
  });

  it('a voucher that expires unredeemed ends its claim: EXPIRED, the item released', async () => {
    const recipient = flow.chain.wallet(9).account.address;
    const target = await item();
    const { claimId, token, answer } = await redeemed(target.id, recipient, new Date(Date.now() + 3_000));
    assert.equal(answer.statusCode, 200, answer.body);
    const voucherId = answer.json().voucher.id as string;
    const view = await flow.until(
      async () => {
        const current = (await client().get(token)).json();
        return current.voucher === null || current.status === 'EXPIRED' ? current : undefined;
      },
      'the claim to expire with its voucher',
      30_000,
    );
    assert.equal(view.status, 'EXPIRED');
    const row = await db()
      .selectFrom('mint_vouchers')
      .selectAll()
      .where('id', '=', voucherId)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'EXPIRED');
    assert.deepEqual(await activeReservations(target.id), [], 'the item is free again');
    const claim = await flow.env.call('GET', `/v1/email-claims/${claimId}`, { token: flow.member.token });
    assert.equal(claim.json().active, false);
  });
});
