import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseEventLogs, zeroAddress } from 'viem';
import { platformContracts } from '../../src/chain/artifacts.ts';
import { GAS_PER_ENTRY } from '../../src/modules/tokens/token-flows/token-flow-batch-calls.ts';
import { assertReverts, useTestChain } from '../chain/anvil.ts';
import { deployCollection, freshAddress } from './collections.ts';

/**
 * The calls that reach many recipients in one transaction (capabilities ADMIN_MINT_BATCH and
 * BATCH_TRANSFER), which the token-flow pipeline batches buyers' deliveries into, and their gas
 * per entry against a typical single mint (to a new holder, not the collection's first).
 */

const chain = useTestChain();
const erc721Abi = platformContracts.FlexibleERC721.abi;
const erc1155Abi = platformContracts.FlexibleERC1155.abi;
const ENTRIES = 50;
/** What a batched delivery may cost at most, as a share of a single mint (issue goal; the floor is about 0.55). */
const GOAL = 0.65;

const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => BigInt(from + i));
const fresh = (count: number) => Array.from({ length: count }, () => freshAddress());

describe('ERC-721 batches (FlexibleERC721; every ERC-721 variant shares PlatformERC721)', () => {
  it(`mintBatch to ${ENTRIES} new holders costs at most ${GOAL}× a single mint per token, within GAS_PER_ENTRY`, async (t) => {
    const collection = (await deployCollection(chain(), 'FlexibleERC721')).as();
    await chain().mined(collection.write.mint([freshAddress(), 1n]));
    const single = await chain().mined(collection.write.mint([freshAddress(), 2n]));
    const batch = await chain().mined(collection.write.mintBatch([fresh(ENTRIES), ids(100, ENTRIES)]));
    const perEntry = Number(batch.gasUsed) / ENTRIES;
    t.diagnostic(
      `${perEntry} gas per entry, ${single.gasUsed} for a single mint: ${(perEntry / Number(single.gasUsed)).toFixed(3)}×`,
    );
    assert.ok(
      perEntry <= GOAL * Number(single.gasUsed),
      `${perEntry} gas per entry against ${single.gasUsed} for a single mint`,
    );
    assert.ok(
      perEntry <= GAS_PER_ENTRY.ERC721_MINT,
      `${perEntry} gas per entry over the estimate the service counts`,
    );
  });

  it('transferToMany sends each token to its own recipient, as the holder or an approved operator only', async () => {
    const holder = chain().wallet(0);
    const operator = chain().wallet(1);
    const collection = (await deployCollection(chain(), 'FlexibleERC721')).as();
    await chain().mined(
      collection.write.mintBatch([Array(4).fill(holder.account.address), [1n, 2n, 3n, 4n]]),
    );
    const recipients = fresh(2);
    const receipt = await chain().mined(
      collection.write.transferToMany([holder.account.address, recipients, [1n, 2n]]),
    );
    const transfers = parseEventLogs({ abi: erc721Abi, logs: receipt.logs, eventName: 'Transfer' });
    assert.deepEqual(
      transfers.map((e) => [e.args.from, e.args.to, e.args.tokenId]),
      [
        [holder.account.address, recipients[0], 1n],
        [holder.account.address, recipients[1], 2n],
      ],
    );
    const shared = await deployCollection(chain(), 'FlexibleERC721');
    await chain().mined(shared.as().write.mint([holder.account.address, 7n]));
    await assertReverts(
      shared.as(operator).write.transferToMany([holder.account.address, [freshAddress()], [7n]]),
      'ERC721InsufficientApproval',
    );
    await chain().mined(shared.as().write.setApprovalForAll([operator.account.address, true]));
    const to = freshAddress();
    await chain().mined(shared.as(operator).write.transferToMany([holder.account.address, [to], [7n]]));
    assert.equal(await shared.as().read.ownerOf([7n]), to);
  });

  it(`transferToMany to ${ENTRIES} new holders costs at most GAS_PER_ENTRY per token`, async (t) => {
    const holder = chain().wallet(0);
    const collection = (await deployCollection(chain(), 'FlexibleERC721')).as();
    await chain().mined(
      collection.write.mintBatch([Array(ENTRIES).fill(holder.account.address), ids(1, ENTRIES)]),
    );
    const batch = await chain().mined(
      collection.write.transferToMany([holder.account.address, fresh(ENTRIES), ids(1, ENTRIES)]),
    );
    const perEntry = Number(batch.gasUsed) / ENTRIES;
    t.diagnostic(`${perEntry} gas per entry`);
    assert.ok(
      perEntry <= GAS_PER_ENTRY.ERC721_TRANSFER,
      `${perEntry} gas per entry over the estimate the service counts`,
    );
  });

  it('transferToMany refuses lists of different lengths, an empty list, and a recipient that does not accept ERC-721', async () => {
    const holder = chain().wallet(0);
    const collection = await deployCollection(chain(), 'FlexibleERC721');
    await chain().mined(
      collection.as().write.mintBatch([
        [holder.account.address, holder.account.address],
        [1n, 2n],
      ]),
    );
    await assertReverts(
      collection.as().write.transferToMany([holder.account.address, [freshAddress()], [1n, 2n]]),
      'ArrayLengthMismatch',
    );
    await assertReverts(
      collection.as().write.transferToMany([holder.account.address, [], []]),
      'InvalidQuantity',
    );
    // A contract without onERC721Received: the whole call reverts, the first token stays put.
    await assertReverts(
      collection
        .as()
        .write.transferToMany([holder.account.address, [freshAddress(), collection.address], [1n, 2n]]),
      'ERC721InvalidReceiver',
    );
    assert.equal(await collection.as().read.ownerOf([1n]), holder.account.address);
  });
});

describe('ERC-1155 batches (FlexibleERC1155; every ERC-1155 variant shares PlatformERC1155)', () => {
  it('mintToMany mints each (recipient, id, amount) entry, one TransferSingle each, under the supply caps', async () => {
    const collection = (await deployCollection(chain(), 'FlexibleERC1155', { maxSupply: 10n })).as();
    const recipients = fresh(3);
    const receipt = await chain().mined(
      collection.write.mintToMany([recipients, [1n, 1n, 2n], [2n, 3n, 1n]]),
    );
    const events = parseEventLogs({ abi: erc1155Abi, logs: receipt.logs, eventName: 'TransferSingle' });
    assert.deepEqual(
      events.map((e) => [e.args.from, e.args.to, e.args.id, e.args.value]),
      [
        [zeroAddress, recipients[0], 1n, 2n],
        [zeroAddress, recipients[1], 1n, 3n],
        [zeroAddress, recipients[2], 2n, 1n],
      ],
    );
    assert.equal(await collection.read.tokenMinted([1n]), 5n);
    assert.equal(await collection.read.totalMinted(), 6n);
    await chain().mined(collection.write.setMaxSupply([1n, 6n]));
    await assertReverts(collection.write.mintToMany([fresh(2), [1n, 1n], [1n, 1n]]), 'MaxSupplyExceeded');
    await assertReverts(collection.write.mintToMany([fresh(1), [3n], [5n]]), 'MaxSupplyExceeded');
    await assertReverts(collection.write.mintToMany([fresh(2), [1n], [1n]]), 'ArrayLengthMismatch');
    await assertReverts(collection.write.mintToMany([fresh(1), [1n], [1n, 1n]]), 'ArrayLengthMismatch');
    await assertReverts(collection.write.mintToMany([fresh(1), [4n], [0n]]), 'InvalidQuantity');
    await assertReverts(collection.write.mintToMany([[], [], []]), 'InvalidQuantity');
    const stranger = (await deployCollection(chain(), 'FlexibleERC1155')).as(chain().wallet(1));
    await assertReverts(
      stranger.write.mintToMany([fresh(1), [1n], [1n]]),
      'AccessControlUnauthorizedAccount',
    );
  });

  it(`mintToMany to ${ENTRIES} new holders of one id costs at most ${GOAL}× a single mint per entry, within GAS_PER_ENTRY`, async (t) => {
    const collection = (await deployCollection(chain(), 'FlexibleERC1155')).as();
    await chain().mined(collection.write.mint([freshAddress(), 1n, 1n]));
    const single = await chain().mined(collection.write.mint([freshAddress(), 1n, 1n]));
    const batch = await chain().mined(
      collection.write.mintToMany([fresh(ENTRIES), Array(ENTRIES).fill(1n), Array(ENTRIES).fill(1n)]),
    );
    const perEntry = Number(batch.gasUsed) / ENTRIES;
    t.diagnostic(
      `${perEntry} gas per entry, ${single.gasUsed} for a single mint: ${(perEntry / Number(single.gasUsed)).toFixed(3)}×`,
    );
    assert.ok(
      perEntry <= GOAL * Number(single.gasUsed),
      `${perEntry} gas per entry against ${single.gasUsed} for a single mint`,
    );
    assert.ok(
      perEntry <= GAS_PER_ENTRY.ERC1155_MINT,
      `${perEntry} gas per entry over the estimate the service counts`,
    );
  });

  it(`transferToMany to ${ENTRIES} new holders of one id costs at most GAS_PER_ENTRY per entry`, async (t) => {
    const holder = chain().wallet(0);
    const collection = (await deployCollection(chain(), 'FlexibleERC1155')).as();
    await chain().mined(collection.write.mint([holder.account.address, 1n, BigInt(ENTRIES)]));
    const batch = await chain().mined(
      collection.write.transferToMany([
        holder.account.address,
        fresh(ENTRIES),
        Array(ENTRIES).fill(1n),
        Array(ENTRIES).fill(1n),
      ]),
    );
    const perEntry = Number(batch.gasUsed) / ENTRIES;
    t.diagnostic(`${perEntry} gas per entry`);
    assert.ok(
      perEntry <= GAS_PER_ENTRY.ERC1155_TRANSFER,
      `${perEntry} gas per entry over the estimate the service counts`,
    );
  });

  it('transferToMany sends each entry to its recipient, by the holder or an operator approved for all', async () => {
    const holder = chain().wallet(0);
    const operator = chain().wallet(1);
    const collection = await deployCollection(chain(), 'FlexibleERC1155');
    await chain().mined(collection.as().write.mintBatch([holder.account.address, [1n, 2n], [10n, 10n]]));
    const recipients = fresh(2);
    const receipt = await chain().mined(
      collection.as().write.transferToMany([holder.account.address, recipients, [1n, 2n], [4n, 1n]]),
    );
    const events = parseEventLogs({ abi: erc1155Abi, logs: receipt.logs, eventName: 'TransferSingle' });
    assert.deepEqual(
      events.map((e) => [e.args.from, e.args.to, e.args.id, e.args.value]),
      [
        [holder.account.address, recipients[0], 1n, 4n],
        [holder.account.address, recipients[1], 2n, 1n],
      ],
    );
    assert.equal(await collection.as().read.balanceOf([holder.account.address, 1n]), 6n);
    await assertReverts(
      collection.as(operator).write.transferToMany([holder.account.address, [freshAddress()], [1n], [1n]]),
      'ERC1155MissingApprovalForAll',
    );
    await assertReverts(
      collection.as().write.transferToMany([holder.account.address, [freshAddress()], [1n], [7n]]),
      'ERC1155InsufficientBalance',
    );
    await assertReverts(
      collection.as().write.transferToMany([holder.account.address, [freshAddress()], [1n, 2n], [1n]]),
      'ArrayLengthMismatch',
    );
    // The collection itself is a contract that does not accept ERC-1155 units.
    await assertReverts(
      collection.as().write.transferToMany([holder.account.address, [collection.address], [1n], [1n]]),
      'ERC1155InvalidReceiver',
    );
  });
});
