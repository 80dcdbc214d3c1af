import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Address,
  getContract,
  type Hex,
  hashTypedData,
  parseEther,
  parseEventLogs,
  zeroAddress,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { MockERC20Abi } from '../../contracts/artifacts/abis.ts';
import mockErc20 from '../../contracts/artifacts/test/MockERC20.json' with { type: 'json' };
import { platformContracts } from '../../src/chain/artifacts.ts';
import {
  type MintVoucher,
  mintVoucherDomain,
  mintVoucherTypes,
  signMintVoucher,
} from '../../src/chain/mint-voucher.ts';
import { assertReverts, type TestWallet, useTestChain } from '../chain/anvil.ts';
import { deployCollection, freshAddress } from './collections.ts';

const chain = useTestChain();
const abi = platformContracts.SignatureERC721.abi;

/** Dev account 0 deploys and holds every role; account 1 buys; account 2 holds no role. */
async function setUp(options: { maxSupply?: bigint } = {}) {
  const admin = chain().wallet(0);
  const buyer = chain().wallet(1);
  const { address, as } = await deployCollection(chain(), 'SignatureERC721', options);
  const signer = privateKeyToAccount(chain().dev.accounts[0]!.privateKey);
  return { admin, buyer, address, as, signer };
}

async function voucherFor(minter: Address, overrides: Partial<MintVoucher> = {}): Promise<MintVoucher> {
  return {
    minter,
    tokenId: 0n,
    quantity: 1n,
    price: parseEther('1'),
    currency: zeroAddress,
    netRecipient: freshAddress(),
    feeRecipient: freshAddress(),
    feeAmount: parseEther('0.05'),
    nonce: 0n,
    expiry: (await chain().now()) + 3600n,
    ...overrides,
  };
}

async function sign(contract: Address, voucher: MintVoucher, key?: Hex, chainId?: number): Promise<Hex> {
  const account = privateKeyToAccount(key ?? chain().dev.accounts[0]!.privateKey);
  return signMintVoucher(account, { chainId: chainId ?? chain().dev.chainId, contract }, voucher);
}

async function deployToken(owner: TestWallet) {
  const address = await chain().deploy(owner, { abi: MockERC20Abi, bytecode: mockErc20.bytecode as Hex }, [
    'Test Dollar',
    'TUSD',
    6,
  ]);
  return (wallet: TestWallet) =>
    getContract({ address, abi: MockERC20Abi, client: { public: chain().publicClient, wallet } });
}

describe('SignatureERC721 mint vouchers', () => {
  it('hashVoucher equals the EIP-712 digest viem computes for the MintVoucher type', async () => {
    const { as, address } = await setUp();
    const voucher = await voucherFor(freshAddress());
    const expected = hashTypedData({
      domain: mintVoucherDomain(chain().dev.chainId, address),
      types: mintVoucherTypes,
      primaryType: 'MintVoucher',
      message: voucher,
    });
    assert.equal(await as().read.hashVoucher([voucher]), expected);
  });

  it('a native-currency voucher mints to the minter and splits the price exactly between net and fee recipients', async () => {
    const { buyer, as, address } = await setUp();
    const voucher = await voucherFor(buyer.account.address, { quantity: 3n });
    const signature = await sign(address, voucher);
    const receipt = await chain().mined(
      as(buyer).write.mintWithVoucher([voucher, signature], { value: voucher.price }),
    );

    const publicClient = chain().publicClient;
    assert.equal(await publicClient.getBalance({ address: voucher.netRecipient }), parseEther('0.95'));
    assert.equal(await publicClient.getBalance({ address: voucher.feeRecipient }), parseEther('0.05'));
    assert.equal(await publicClient.getBalance({ address }), 0n);
    const ids = parseEventLogs({ abi, logs: receipt.logs, eventName: 'Transfer' }).map((e) => e.args.tokenId);
    assert.deepEqual(ids, [1n, 2n, 3n]);
    assert.equal(await as().read.balanceOf([buyer.account.address]), 3n);
    assert.equal(await as().read.nonces([buyer.account.address]), 1n);
    const [redeemed] = parseEventLogs({ abi, logs: receipt.logs, eventName: 'VoucherRedeemed' });
    assert.equal(redeemed?.args.minter, buyer.account.address);
    assert.equal(redeemed?.args.firstTokenId, 1n);
    assert.equal(redeemed?.args.digest, await as().read.hashVoucher([voucher]));
  });

  it('an ERC-20 voucher takes the price from the minter and splits it exactly between net and fee recipients', async () => {
    const { admin, buyer, as, address } = await setUp();
    const token = await deployToken(admin);
    await chain().mined(token(admin).write.mint([buyer.account.address, 1_000_000_000n]));
    const voucher = await voucherFor(buyer.account.address, {
      currency: token(admin).address,
      price: 25_000_000n,
      feeAmount: 1_250_000n,
    });
    await chain().mined(token(buyer).write.approve([address, voucher.price]));
    await chain().mined(as(buyer).write.mintWithVoucher([voucher, await sign(address, voucher)]));

    assert.equal(await token(admin).read.balanceOf([voucher.netRecipient]), 23_750_000n);
    assert.equal(await token(admin).read.balanceOf([voucher.feeRecipient]), 1_250_000n);
    assert.equal(await token(admin).read.balanceOf([buyer.account.address]), 975_000_000n);
    assert.equal(await token(admin).read.balanceOf([address]), 0n);
    assert.equal(await as().read.ownerOf([1n]), buyer.account.address);
  });

  it('an ERC-20 voucher without enough allowance reverts and moves nothing', async () => {
    const { admin, buyer, as, address } = await setUp();
    const token = await deployToken(admin);
    await chain().mined(token(admin).write.mint([buyer.account.address, 1_000n]));
    const voucher = await voucherFor(buyer.account.address, {
      currency: token(admin).address,
      price: 100n,
      feeAmount: 10n,
    });
    await chain().mined(token(buyer).write.approve([address, 99n]));
    const signature = await sign(address, voucher);
    await assert.rejects(as(buyer).write.mintWithVoucher([voucher, signature]));
    assert.equal(await token(admin).read.balanceOf([buyer.account.address]), 1_000n);
    assert.equal(await as().read.nonces([buyer.account.address]), 0n);
  });

  it('an ERC-20 voucher rejects native coin sent along', async () => {
    const { admin, buyer, as, address } = await setUp();
    const token = await deployToken(admin);
    const voucher = await voucherFor(buyer.account.address, {
      currency: token(admin).address,
      price: 0n,
      feeAmount: 0n,
    });
    const signature = await sign(address, voucher);
    await assertReverts(
      as(buyer).write.mintWithVoucher([voucher, signature], { value: 1n }),
      'IncorrectPayment',
    );
  });

  it('an explicit token id mints exactly that id, and requires quantity 1', async () => {
    const { buyer, as, address } = await setUp();
    const many = await voucherFor(buyer.account.address, {
      tokenId: 77n,
      quantity: 2n,
      price: 0n,
      feeAmount: 0n,
    });
    await assertReverts(
      as(buyer).write.mintWithVoucher([many, await sign(address, many)]),
      'InvalidQuantity',
    );
    const one = { ...many, quantity: 1n };
    await chain().mined(as(buyer).write.mintWithVoucher([one, await sign(address, one)]));
    assert.equal(await as().read.ownerOf([77n]), buyer.account.address);
  });

  it('a redeemed voucher cannot be replayed', async () => {
    const { buyer, as, address } = await setUp();
    const voucher = await voucherFor(buyer.account.address);
    const signature = await sign(address, voucher);
    await chain().mined(as(buyer).write.mintWithVoucher([voucher, signature], { value: voucher.price }));
    await assertReverts(
      as(buyer).write.mintWithVoucher([voucher, signature], { value: voucher.price }),
      'InvalidAccountNonce',
    );
  });

  it("a voucher whose nonce is not the minter's current nonce reverts; nonces increase per minter", async () => {
    const { buyer, as, address } = await setUp();
    const ahead = await voucherFor(buyer.account.address, { nonce: 1n });
    await assertReverts(
      as(buyer).write.mintWithVoucher([ahead, await sign(address, ahead)], { value: ahead.price }),
      'InvalidAccountNonce',
    );
    const first = await voucherFor(buyer.account.address, { nonce: 0n });
    await chain().mined(
      as(buyer).write.mintWithVoucher([first, await sign(address, first)], { value: first.price }),
    );
    await chain().mined(
      as(buyer).write.mintWithVoucher([ahead, await sign(address, ahead)], { value: ahead.price }),
    );
    assert.equal(await as().read.nonces([buyer.account.address]), 2n);
    assert.equal(await as().read.nonces([chain().wallet(2).account.address]), 0n);
  });

  it('an expired voucher reverts VoucherExpired', async () => {
    const { buyer, as, address } = await setUp();
    const voucher = await voucherFor(buyer.account.address, { expiry: (await chain().now()) - 1n });
    await assertReverts(
      as(buyer).write.mintWithVoucher([voucher, await sign(address, voucher)], { value: voucher.price }),
      'VoucherExpired',
    );
  });

  it('a voucher signed by a key without VOUCHER_SIGNER_ROLE reverts VoucherSignerUnauthorized', async () => {
    const { buyer, as, address } = await setUp();
    const voucher = await voucherFor(buyer.account.address);
    const signature = await sign(address, voucher, chain().dev.accounts[2]!.privateKey);
    await assertReverts(
      as(buyer).write.mintWithVoucher([voucher, signature], { value: voucher.price }),
      'VoucherSignerUnauthorized',
    );
  });

  it('a signer granted VOUCHER_SIGNER_ROLE can sign vouchers, and cannot once revoked', async () => {
    const { buyer, as, address } = await setUp();
    const signerKey = chain().dev.accounts[3]!.privateKey;
    const signerAddress = chain().wallet(3).account.address;
    const role = await as().read.VOUCHER_SIGNER_ROLE();
    await chain().mined(as().write.grantRole([role, signerAddress]));
    const first = await voucherFor(buyer.account.address);
    await chain().mined(
      as(buyer).write.mintWithVoucher([first, await sign(address, first, signerKey)], { value: first.price }),
    );
    await chain().mined(as().write.revokeRole([role, signerAddress]));
    const second = await voucherFor(buyer.account.address, { nonce: 1n });
    await assertReverts(
      as(buyer).write.mintWithVoucher([second, await sign(address, second, signerKey)], {
        value: second.price,
      }),
      'VoucherSignerUnauthorized',
    );
  });

  it('a voucher signed for another chain id reverts: the domain binds the chain', async () => {
    const { buyer, as, address } = await setUp();
    const voucher = await voucherFor(buyer.account.address);
    const signature = await sign(address, voucher, undefined, chain().dev.chainId + 1);
    await assertReverts(
      as(buyer).write.mintWithVoucher([voucher, signature], { value: voucher.price }),
      'VoucherSignerUnauthorized',
    );
  });

  it('a voucher signed for another contract reverts: the domain binds the contract', async () => {
    const { buyer, as } = await setUp();
    const other = await setUp();
    const voucher = await voucherFor(buyer.account.address);
    const signature = await sign(other.address, voucher);
    await assertReverts(
      as(buyer).write.mintWithVoucher([voucher, signature], { value: voucher.price }),
      'VoucherSignerUnauthorized',
    );
  });

  it('paying less or more than the native price reverts IncorrectPayment', async () => {
    const { buyer, as, address } = await setUp();
    const voucher = await voucherFor(buyer.account.address);
    const signature = await sign(address, voucher);
    await assertReverts(
      as(buyer).write.mintWithVoucher([voucher, signature], { value: voucher.price - 1n }),
      'IncorrectPayment',
    );
    await assertReverts(
      as(buyer).write.mintWithVoucher([voucher, signature], { value: voucher.price + 1n }),
      'IncorrectPayment',
    );
  });

  it('a sender other than the voucher minter reverts VoucherMinterMismatch', async () => {
    const { buyer, as, address } = await setUp();
    const voucher = await voucherFor(buyer.account.address);
    const signature = await sign(address, voucher);
    await assertReverts(
      as(chain().wallet(2)).write.mintWithVoucher([voucher, signature], { value: voucher.price }),
      'VoucherMinterMismatch',
    );
  });

  it('a fee above the price reverts VoucherFeeExceedsPrice', async () => {
    const { buyer, as, address } = await setUp();
    const voucher = await voucherFor(buyer.account.address, { price: 10n, feeAmount: 11n });
    await assertReverts(
      as(buyer).write.mintWithVoucher([voucher, await sign(address, voucher)], { value: voucher.price }),
      'VoucherFeeExceedsPrice',
    );
  });

  it('a fee without a fee recipient reverts VoucherPaymentRecipientMissing', async () => {
    const { buyer, as, address } = await setUp();
    const voucher = await voucherFor(buyer.account.address, { feeRecipient: zeroAddress });
    await assertReverts(
      as(buyer).write.mintWithVoucher([voucher, await sign(address, voucher)], { value: voucher.price }),
      'VoucherPaymentRecipientMissing',
    );
  });

  it('voucher mints count against maxSupply', async () => {
    const { buyer, as, address } = await setUp({ maxSupply: 2n });
    const voucher = await voucherFor(buyer.account.address, { quantity: 3n });
    await assertReverts(
      as(buyer).write.mintWithVoucher([voucher, await sign(address, voucher)], { value: voucher.price }),
      'MaxSupplyExceeded',
    );
  });

  it('a free voucher (price 0) mints without payment', async () => {
    const { buyer, as, address } = await setUp();
    const voucher = await voucherFor(buyer.account.address, {
      price: 0n,
      feeAmount: 0n,
      netRecipient: zeroAddress,
      feeRecipient: zeroAddress,
    });
    await chain().mined(as(buyer).write.mintWithVoucher([voucher, await sign(address, voucher)]));
    assert.equal(await as().read.ownerOf([1n]), buyer.account.address);
  });
});
