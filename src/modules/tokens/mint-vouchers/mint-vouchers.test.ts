import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Address, erc20Abi, getAddress, zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { MockERC20Abi } from '../../../../contracts/artifacts/abis.ts';
import { assertError } from '../../../../test/assertions.ts';
import { assertReverts } from '../../../../test/chain/anvil.ts';
import { type FlowTest, setupFlowTest } from '../../../../test/chain/flow.ts';
import { freshIp } from '../../../../test/support/auth.ts';
import { deployErc20 } from '../../../../test/support/networks.ts';
import { findItemRow, insertItems } from '../../../../test/support/token-requests.ts';
import { mintWithVoucherArgs } from '../../../../test/support/vouchers.ts';
import { platformContracts } from '../../../chain/artifacts.ts';
import { signMintVoucher } from '../../../chain/mint-voucher.ts';
import type { VoucherHolders } from '../../../context.ts';
import type { CollectionRow, ItemRow, MintVoucherRow } from '../../../db/schema.ts';
import { ApiError } from '../../../lib/errors.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { reserveItems } from '../../catalog/items/item-flows.service.ts';
import { LIMITS, voucherCurrencyOf } from './mint-vouchers.service.ts';
import {
  type IssueVoucherRequest,
  issueVoucher,
  readVoucherChain,
  type VoucherChain,
  VoucherChainStale,
  withVoucherChain,
} from './voucher-issue.service.ts';
import { watchNetworkVouchers } from './voucher-watch.service.ts';

const signatureErc721 = platformContracts.SignatureERC721;
const FEE_ADDRESS = privateKeyToAccount(generatePrivateKey()).address;
const PAYOUT = privateKeyToAccount(generatePrivateKey()).address;

describe('mint vouchers on a real chain: signed by the organization, redeemed by the buyer, watched', () => {
  let flow: FlowTest;
  let address: Address;
  let collection: CollectionRow;
  before(async () => {
    flow = await setupFlowTest({ PLATFORM_FEE_ADDRESS: FEE_ADDRESS });
    ({ address, collection } = await flow.deployCollection('ERC721', { variant: 'SignatureERC721' }));
    // 5% platform fee, paid out to the organization's payout address.
    await db()
      .updateTable('organizations')
      .set({ payout_address: PAYOUT, platform_sale_fee: 500 })
      .where('id', '=', flow.organizationId)
      .execute();
  });
  after(() => flow.close());

  const db = () => flow.env.database.db;
  let nextTokenId = 1n;
  const item = async (target = collection): Promise<ItemRow> => {
    const [row] = await insertItems(db(), 1, {
      collectionId: target.id,
      organizationId: flow.organizationId,
      firstTokenId: nextTokenId++,
    });
    return row!;
  };

  /**
   * Issues a voucher held by a (made-up) purchase intent that reserved the item, as a holder does:
   * the chain read first, then the voucher in a transaction.
   */
  const issue = async (
    overrides: Partial<IssueVoucherRequest> & { itemId: string; minter: Address },
    options: { reserve?: boolean } = {},
  ) => {
    const holderId = uuidv7();
    const request: IssueVoucherRequest = {
      organizationId: flow.organizationId,
      collectionId: collection.id,
      quantity: 1n,
      price: 0n,
      currency: zeroAddress,
      expiry: new Date(Date.now() + 3_600_000),
      holder: { kind: 'PURCHASE_INTENT', id: holderId },
      ...overrides,
    };
    const target = {
      organizationId: request.organizationId,
      collectionId: request.collectionId,
      minter: request.minter,
    };
    return withVoucherChain(db(), flow.env.ctx, target, (chain) =>
      db()
        .transaction()
        .execute(async (tx) => {
          if (options.reserve !== false)
            await reserveItems(tx, [{ id: overrides.itemId }], 'PURCHASE_INTENT', holderId, 1n);
          const issued = await issueVoucher(tx, flow.env.ctx, request, chain);
          return { ...issued, holderId };
        }),
    );
  };

  const args = mintWithVoucherArgs;

  const voucherRowsOf = (minter: Address) =>
    db().selectFrom('mint_vouchers').select('id').where('minter', '=', minter.toLowerCase()).execute();

  const voucherRow = (id: string) =>
    db().selectFrom('mint_vouchers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  const untilStatus = (id: string, status: MintVoucherRow['status']) =>
    flow.until(async () => {
      const row = await voucherRow(id);
      return row.status === status ? row : undefined;
    }, `voucher ${id} to be ${status}`);

  const activeReservations = (itemId: string) =>
    db()
      .selectFrom('item_reservations')
      .selectAll()
      .where('item_id', '=', itemId)
      .where('released_at', 'is', null)
      .execute();

  it('a priced native-coin voucher: the contract accepts the signature and splits the price exactly', async () => {
    const buyer = flow.chain.wallet(3);
    const target = await item();
    const price = 10n ** 17n;
    const { id, data, holderId } = await issue({ itemId: target.id, minter: buyer.account.address, price });
    assert.equal(data.contract, getAddress(address));
    assert.equal(data.minter, buyer.account.address);
    assert.equal(data.network_id, flow.networkId);
    assert.deepEqual(data.voucher, {
      net_recipient: PAYOUT,
      initial_recipient: FEE_ADDRESS,
      initial_recipient_amount: (price / 20n).toString(),
      quantity: '1',
      nonce: '0',
      expiry: data.voucher.expiry,
      price: price.toString(),
      token_id: target.token_id,
      currency: zeroAddress,
    });
    const balance = (a: Address) => flow.chain.publicClient.getBalance({ address: a });
    const [payoutBefore, feeBefore] = [await balance(PAYOUT), await balance(FEE_ADDRESS)];
    await flow.chain.mined(
      buyer.writeContract({
        address,
        abi: signatureErc721.abi,
        functionName: 'mintWithVoucher',
        args: args(data),
        value: price,
      }),
    );
    assert.equal((await balance(PAYOUT)) - payoutBefore, price - price / 20n);
    assert.equal((await balance(FEE_ADDRESS)) - feeBefore, price / 20n);
    const owner = await flow.chain.publicClient.readContract({
      address,
      abi: signatureErc721.abi,
      functionName: 'ownerOf',
      args: [BigInt(target.token_id!)],
    });
    assert.equal(owner, buyer.account.address);

    const redeemed = await untilStatus(id, 'REDEEMED');
    assert.match(redeemed.redeemed_tx_hash!, /^0x[0-9a-f]{64}$/);
    assert.equal(redeemed.redeemed_token_id, target.token_id);
    const row = await findItemRow(db(), target.id);
    assert.deepEqual([row.token_status, row.minted_supply, row.held_supply], ['MINTED', '1', '0']);
    assert.deepEqual(await activeReservations(target.id), [], "the holder's reservation ended");
    assert.ok(holderId);
  });

  it('the watcher settles a redemption exactly once, however often it runs', async () => {
    const buyer = flow.chain.wallet(4);
    const target = await item();
    const { id, data } = await issue({ itemId: target.id, minter: buyer.account.address });
    await flow.chain.mined(
      buyer.writeContract({
        address,
        abi: signatureErc721.abi,
        functionName: 'mintWithVoucher',
        args: args(data),
      }),
    );
    const calls: string[] = [];
    const counting: VoucherHolders = {
      EMAIL_CLAIM: { redeemed: async () => {}, ended: async () => {} },
      PURCHASE_INTENT: {
        redeemed: async (_db, _deps, voucher) => void calls.push(`redeemed ${voucher.id}`),
        ended: async (_db, _deps, voucher) => void calls.push(`ended ${voucher.id}`),
      },
    };
    // Two runs at once and the worker's own: one of them settles it.
    await Promise.all([
      watchNetworkVouchers(db(), flow.env.ctx, counting, flow.networkId),
      watchNetworkVouchers(db(), flow.env.ctx, counting, flow.networkId),
    ]);
    await untilStatus(id, 'REDEEMED');
    await watchNetworkVouchers(db(), flow.env.ctx, counting, flow.networkId);
    assert.ok(calls.length <= 1, calls.join(', '));
    assert.ok(calls.every((c) => c === `redeemed ${id}`));
    const row = await findItemRow(db(), target.id);
    assert.deepEqual([row.token_status, row.minted_supply], ['MINTED', '1'], 'minted once');
  });

  it('an ERC-20 priced voucher: the approved token is split between payout and fee', async () => {
    const buyer = flow.chain.wallet(5);
    const token = getAddress(await deployErc20(flow.chain.dev, { symbol: 'USDT', decimals: 6 }));
    await db()
      .insertInto('payment_tokens')
      .values({ network_id: flow.networkId, address: token, symbol: 'USDT', decimals: 6 })
      .execute();
    const price = 25_000_000n;
    await flow.chain.mined(
      flow.chain.wallet(0).writeContract({
        address: token,
        abi: MockERC20Abi,
        functionName: 'mint',
        args: [buyer.account.address, price],
      }),
    );
    await flow.chain.mined(
      buyer.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [address, price] }),
    );
    assert.equal(await voucherCurrencyOf(db(), flow.networkId, 'usdt'), token);
    assert.equal(await voucherCurrencyOf(db(), flow.networkId, 'ETH'), zeroAddress);
    await assert.rejects(voucherCurrencyOf(db(), flow.networkId, 'DAI'), ApiError);
    const target = await item();
    const { id, data } = await issue({
      itemId: target.id,
      minter: buyer.account.address,
      price,
      currency: await voucherCurrencyOf(db(), flow.networkId, 'USDT'),
    });
    assert.equal(data.voucher.currency, token);
    const balance = (a: Address) =>
      flow.chain.publicClient.readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [a],
      });
    await flow.chain.mined(
      buyer.writeContract({
        address,
        abi: signatureErc721.abi,
        functionName: 'mintWithVoucher',
        args: args(data),
      }),
    );
    assert.equal(await balance(PAYOUT), price - price / 20n);
    assert.equal(await balance(FEE_ADDRESS), price / 20n);
    assert.equal(await balance(buyer.account.address), 0n);
    await untilStatus(id, 'REDEEMED');
  });

  it('one pending voucher per minter and contract (409 INVALID_STATE); another minter may have one', async () => {
    const minter = privateKeyToAccount(generatePrivateKey()).address;
    const first = await item();
    await issue({ itemId: first.id, minter });
    const second = await item();
    await assert.rejects(issue({ itemId: second.id, minter }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'INVALID_STATE');
      return true;
    });
    const other = privateKeyToAccount(generatePrivateKey()).address;
    const issued = await issue({ itemId: second.id, minter: other });
    assert.equal(issued.data.minter, other);
  });

  it('refuses to sign with a nonce that a voucher of the minter consumed since the chain was read, and reads again', async () => {
    const minter = privateKeyToAccount(generatePrivateKey()).address;
    const target = { organizationId: flow.organizationId, collectionId: collection.id, minter };
    const stale = await readVoucherChain(db(), flow.env.ctx, target);
    assert.equal(stale.reads?.nonce, 0n);
    // Meanwhile a voucher of the minter with that nonce is redeemed and its watcher settles it.
    const first = await issue({ itemId: (await item()).id, minter });
    await db()
      .updateTable('mint_vouchers')
      .set({ status: 'REDEEMED', redeemed_tx_hash: `0x${'ab'.repeat(32)}`, redeemed_block: '1' })
      .where('id', '=', first.id)
      .execute();
    const second = await item();
    const request: IssueVoucherRequest = {
      organizationId: flow.organizationId,
      collectionId: collection.id,
      itemId: second.id,
      minter,
      quantity: 1n,
      price: 0n,
      currency: zeroAddress,
      expiry: new Date(Date.now() + 3_600_000),
      holder: { kind: 'PURCHASE_INTENT', id: uuidv7() },
    };
    const sign = (chain: VoucherChain) =>
      db()
        .transaction()
        .execute(async (tx) => {
          await reserveItems(tx, [{ id: second.id }], 'PURCHASE_INTENT', request.holder.id, 1n);
          return issueVoucher(tx, flow.env.ctx, request, chain);
        });
    await assert.rejects(sign(stale), VoucherChainStale);
    // withVoucherChain reads again: the chain says nonce 0 still (nothing was mined), so the
    // voucher it would sign is as stale, and it gives up with 502 rather than sign it.
    await assert.rejects(withVoucherChain(db(), flow.env.ctx, target, sign), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'UPSTREAM_FAILED');
      return true;
    });
    assert.equal((await voucherRowsOf(minter)).length, 1);
  });

  it('refuses what the contract or the organization cannot honour', async () => {
    const minter = privateKeyToAccount(generatePrivateKey()).address;
    const flexible = await flow.deployCollection('ERC721');
    const [plain] = await insertItems(db(), 1, {
      collectionId: flexible.collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    const minted = await item();
    await db()
      .updateTable('items')
      .set({ token_status: 'MINTED', minted_supply: '1' })
      .where('id', '=', minted.id)
      .execute();
    const cases: [() => Promise<unknown>, string][] = [
      [
        () => issue({ itemId: plain!.id, minter, collectionId: flexible.collection.id }),
        'MISSING_MINT_CAPABILITY',
      ],
      [() => issue({ itemId: minted.id, minter }), 'ITEM_ALREADY_MINTED'],
      [() => issue({ itemId: minted.id, minter, quantity: 2n }), 'VALIDATION_FAILED'],
      [() => issue({ itemId: minted.id, minter: getAddress(address) }), 'VALIDATION_FAILED'],
      [() => issue({ itemId: minted.id, minter: zeroAddress }), 'VALIDATION_FAILED'],
      [() => issue({ itemId: uuidv7(), minter }, { reserve: false }), 'NOT_FOUND'],
      [
        async () => issue({ itemId: (await item()).id, minter, currency: getAddress(PAYOUT) }),
        'VALIDATION_FAILED',
      ],
      [
        async () => issue({ itemId: (await item()).id, minter, expiry: new Date(Date.now() - 1000) }),
        'VALIDATION_FAILED',
      ],
    ];
    for (const [run, code] of cases)
      await assert.rejects(run(), (error: unknown) => {
        assert.ok(error instanceof ApiError, String(error));
        assert.equal(error.code, code, error.detail);
        return true;
      });
    await db()
      .updateTable('organizations')
      .set({ payout_address: null })
      .where('id', '=', flow.organizationId)
      .execute();
    try {
      await assert.rejects(issue({ itemId: (await item()).id, minter, price: 1n }), (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.code, 'PAYOUT_ADDRESS_REQUIRED');
        return true;
      });
    } finally {
      await db()
        .updateTable('organizations')
        .set({ payout_address: PAYOUT })
        .where('id', '=', flow.organizationId)
        .execute();
    }
  });

  it('an expired voucher is refused on chain and becomes EXPIRED, its holder told', async () => {
    const buyer = flow.chain.wallet(6);
    const target = await item();
    const ended: string[] = [];
    const expiry = new Date(Date.now() + 2_000);
    const { id, data } = await issue({ itemId: target.id, minter: buyer.account.address, expiry });
    await flow.until(
      async () => ((await flow.chain.now()) > BigInt(data.voucher.expiry) + 1n ? true : undefined),
      'the chain to pass the expiry',
    );
    await assertReverts(
      buyer.writeContract({
        address,
        abi: signatureErc721.abi,
        functionName: 'mintWithVoucher',
        args: args(data),
      }),
      'VoucherExpired',
    );
    const telling: VoucherHolders = {
      EMAIL_CLAIM: { redeemed: async () => {}, ended: async () => {} },
      PURCHASE_INTENT: {
        redeemed: async () => {},
        ended: async (_db, _deps, v) => void ended.push(v.status),
      },
    };
    await watchNetworkVouchers(db(), flow.env.ctx, telling, flow.networkId);
    await untilStatus(id, 'EXPIRED');
    // Either this run or the worker's told the holder (the worker's PURCHASE_INTENT handler is the
    // sales module's); when this one did, it saw EXPIRED.
    assert.ok(ended.every((s) => s === 'EXPIRED'));
    assert.equal((await findItemRow(db(), target.id)).token_status, 'NOT_MINTED');
    // A new voucher for the minter takes the same nonce: the expired one never used it.
    const again = await issue({ itemId: (await item()).id, minter: buyer.account.address });
    assert.equal(again.data.voucher.nonce, data.voucher.nonce);
  });

  it('EXTERNAL ids: the voucher names token 0, the contract picks the id, the item takes it from the event', async () => {
    const external = await flow.deployCollection('ERC721', {
      variant: 'SignatureERC721',
      strategy: 'EXTERNAL',
    });
    const [target] = await insertItems(db(), 1, {
      collectionId: external.collection.id,
      organizationId: flow.organizationId,
      firstTokenId: null,
    });
    const buyer = flow.chain.wallet(1);
    const { id, data } = await issue({
      itemId: target!.id,
      minter: buyer.account.address,
      collectionId: external.collection.id,
    });
    assert.equal(data.voucher.token_id, '0');
    await flow.chain.mined(
      buyer.writeContract({
        address: external.address,
        abi: signatureErc721.abi,
        functionName: 'mintWithVoucher',
        args: args(data),
      }),
    );
    const redeemed = await untilStatus(id, 'REDEEMED');
    assert.equal(redeemed.redeemed_token_id, '1', 'the first sequential id');
    const row = await findItemRow(db(), target!.id);
    assert.deepEqual([row.token_status, row.token_id], ['MINTED', '1']);
  });

  it('needs the wallet to hold VOUCHER_SIGNER_ROLE; a voucher whose nonce another signer used becomes CANCELLED', async () => {
    const admin = flow.chain.wallet(0);
    const other = await flow.deployCollection('ERC721', {
      variant: 'SignatureERC721',
      admin: admin.account.address,
    });
    const minter = flow.chain.wallet(2);
    const first = await item(other.collection);
    await assert.rejects(
      issue({ itemId: first.id, minter: minter.account.address, collectionId: other.collection.id }),
      (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.code, 'MISSING_MINT_CAPABILITY');
        assert.match(error.detail, /VOUCHER_SIGNER_ROLE/);
        return true;
      },
    );
    const role = await flow.chain.publicClient.readContract({
      address: other.address,
      abi: signatureErc721.abi,
      functionName: 'VOUCHER_SIGNER_ROLE',
    });
    await flow.chain.mined(
      admin.writeContract({
        address: other.address,
        abi: signatureErc721.abi,
        functionName: 'grantRole',
        args: [role, getAddress(flow.wallet.address)],
      }),
    );
    const ours = await issue({
      itemId: first.id,
      minter: minter.account.address,
      collectionId: other.collection.id,
    });
    // The contract's admin signs its own voucher with the same nonce; the minter redeems that one.
    const foreign = {
      minter: minter.account.address,
      tokenId: 1000n,
      quantity: 1n,
      price: 0n,
      currency: zeroAddress,
      netRecipient: zeroAddress,
      feeRecipient: zeroAddress,
      feeAmount: 0n,
      nonce: BigInt(ours.data.voucher.nonce),
      expiry: BigInt(ours.data.voucher.expiry),
    };
    const signature = await signMintVoucher(
      privateKeyToAccount(flow.chain.dev.accounts[0]!.privateKey),
      { chainId: flow.networkId, contract: other.address },
      foreign,
    );
    await flow.chain.mined(
      minter.writeContract({
        address: other.address,
        abi: signatureErc721.abi,
        functionName: 'mintWithVoucher',
        args: [foreign, signature],
      }),
    );
    const cancelled = await untilStatus(ours.id, 'CANCELLED');
    assert.equal(cancelled.redeemed_tx_hash, null);
    assert.equal((await findItemRow(db(), first.id)).token_status, 'NOT_MINTED');
    assert.equal(
      (await activeReservations(first.id))[0]?.holder_id,
      ours.holderId,
      'the holder decides what becomes of its hold',
    );
  });

  it('the public list: a minter’s pending vouchers, filtered by contract and network; inputs validated', async () => {
    const minter = privateKeyToAccount(generatePrivateKey()).address;
    const target = await item();
    const { id, data } = await issue({ itemId: target.id, minter });
    const list = (path: string) => flow.env.call('GET', path, { ip: freshIp() });
    const all = await list(`/v1/public/mint-vouchers/${minter.toLowerCase()}`);
    assert.equal(all.statusCode, 200, all.body);
    assert.deepEqual(all.json().results, [{ id, ...data, created_at: all.json().results[0].created_at }]);
    assert.equal(all.json().total_results, 1);
    const filtered = await list(
      `/v1/public/mint-vouchers/${minter}?contract_address=${address}&network_id=${flow.networkId}`,
    );
    assert.equal(filtered.json().total_results, 1);
    const elsewhere = await list(`/v1/public/mint-vouchers/${minter}?network_id=1`);
    assert.equal(elsewhere.json().total_results, 0);
    const stranger = await list(
      `/v1/public/mint-vouchers/${privateKeyToAccount(generatePrivateKey()).address}`,
    );
    assert.deepEqual(stranger.json().results, []);
    assertError(await list('/v1/public/mint-vouchers/0x123'), 400, 'VALIDATION_FAILED');
    // The checksummed address with one letter's case flipped: a wrong EIP-55 checksum.
    const letter = [...minter].findIndex((c, i) => i > 1 && /[a-fA-F]/.test(c));
    const flipped = minter[letter]!;
    const wrong = `${minter.slice(0, letter)}${flipped === flipped.toUpperCase() ? flipped.toLowerCase() : flipped.toUpperCase()}${minter.slice(letter + 1)}`;
    assertError(await list(`/v1/public/mint-vouchers/${wrong}`), 400, 'VALIDATION_FAILED');
    assertError(await list(`/v1/public/mint-vouchers/${minter}?surprise=1`), 400, 'VALIDATION_FAILED');
  });

  it('the public list is rate limited per client address', async () => {
    const ip = freshIp();
    const path = `/v1/public/mint-vouchers/${privateKeyToAccount(generatePrivateKey()).address}`;
    for (let i = 0; i < LIMITS.listPerIp.max; i++) {
      const answer = await flow.env.call('GET', path, { ip });
      assert.equal(answer.statusCode, 200, answer.body);
    }
    const limited = await flow.env.call('GET', path, { ip });
    assertError(limited, 429, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal(
      (await flow.env.call('GET', path, { ip: freshIp() })).statusCode,
      200,
      'another address is not',
    );
  });
});
