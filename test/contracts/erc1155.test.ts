import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxUint256, parseEventLogs, zeroAddress } from 'viem';
import { platformContracts } from '../../src/chain/artifacts.ts';
import { assertReverts, useTestChain } from '../chain/anvil.ts';
import { BASE_URI, CONTRACT_URI, deployCollection, freshAddress, INTERFACE_IDS } from './collections.ts';

const chain = useTestChain();
const erc1155Abi = platformContracts.FlexibleERC1155.abi;

for (const variant of ['FlexibleERC1155', 'FrozenERC1155'] as const) {
  describe(`${variant} (ERC-1155 rules shared by every ERC-1155 variant)`, () => {
    it('reports ERC-165 support for ERC1155, ERC1155MetadataURI, ERC2981, AccessControl and ERC-4906, not ERC721', async () => {
      const collection = (await deployCollection(chain(), variant)).as();
      for (const id of [
        INTERFACE_IDS.ERC165,
        INTERFACE_IDS.ERC1155,
        INTERFACE_IDS.ERC1155MetadataURI,
        INTERFACE_IDS.ERC2981,
        INTERFACE_IDS.AccessControl,
        INTERFACE_IDS.ERC4906,
      ]) {
        assert.equal(await collection.read.supportsInterface([id]), true, `supports ${id}`);
      }
      assert.equal(await collection.read.supportsInterface([INTERFACE_IDS.ERC721]), false);
      assert.equal(await collection.read.supportsInterface(['0xffffffff']), false);
    });

    it('uri(id) is the base URI followed by the decimal id, not the {id} template', async () => {
      const collection = (await deployCollection(chain(), variant)).as();
      assert.equal(await collection.read.uri([42n]), `${BASE_URI}42`);
      assert.equal(await collection.read.uri([maxUint256]), `${BASE_URI}${maxUint256}`);
      assert.equal(await collection.read.contractURI(), CONTRACT_URI);
      assert.equal(await collection.read.name(), 'Test Collection');
      assert.equal(await collection.read.symbol(), 'TST');
    });

    it('mint credits an amount of one id and emits TransferSingle', async () => {
      const to = freshAddress();
      const collection = (await deployCollection(chain(), variant)).as();
      const receipt = await chain().mined(collection.write.mint([to, 7n, 25n]));
      const events = parseEventLogs({ abi: erc1155Abi, logs: receipt.logs, eventName: 'TransferSingle' });
      assert.deepEqual(
        events.map((e) => [e.args.from, e.args.to, e.args.id, e.args.value]),
        [[zeroAddress, to, 7n, 25n]],
      );
      assert.equal(await collection.read.balanceOf([to, 7n]), 25n);
      assert.equal(await collection.read.tokenMinted([7n]), 25n);
    });

    it('mintBatch mints each id with its amount in one transaction', async () => {
      const to = freshAddress();
      const collection = (await deployCollection(chain(), variant)).as();
      const receipt = await chain().mined(collection.write.mintBatch([to, [1n, 2n, 3n], [10n, 1n, 5n]]));
      const events = parseEventLogs({ abi: erc1155Abi, logs: receipt.logs, eventName: 'TransferBatch' });
      assert.equal(events.length, 1);
      assert.deepEqual(events[0]?.args.ids, [1n, 2n, 3n]);
      assert.deepEqual(events[0]?.args.values, [10n, 1n, 5n]);
      assert.deepEqual(
        await collection.read.balanceOfBatch([
          [to, to, to],
          [1n, 2n, 3n],
        ]),
        [10n, 1n, 5n],
      );
      assert.equal(await collection.read.totalMinted(), 16n);
    });

    it('mintBatch rejects id and amount lists of different lengths, and zero amounts', async () => {
      const collection = (await deployCollection(chain(), variant)).as();
      await assertReverts(
        collection.write.mintBatch([freshAddress(), [1n, 2n], [1n]]),
        'ArrayLengthMismatch',
      );
      await assertReverts(collection.write.mintBatch([freshAddress(), [1n], [0n]]), 'InvalidQuantity');
      await assertReverts(collection.write.mint([freshAddress(), 1n, 0n]), 'InvalidQuantity');
    });

    it('setMaxSupply caps one id over single and batch mints; other ids stay unbounded', async () => {
      const to = freshAddress();
      const collection = (await deployCollection(chain(), variant)).as();
      await chain().mined(collection.write.setMaxSupply([1n, 10n]));
      assert.equal(await collection.read.tokenMaxSupply([1n]), 10n);
      await chain().mined(collection.write.mint([to, 1n, 6n]));
      await assertReverts(collection.write.mint([to, 1n, 5n]), 'MaxSupplyExceeded');
      await assertReverts(collection.write.mintBatch([to, [2n, 1n], [100n, 5n]]), 'MaxSupplyExceeded');
      await chain().mined(collection.write.mintBatch([to, [2n, 1n], [100n, 4n]]));
      assert.equal(await collection.read.balanceOf([to, 1n]), 10n);
      assert.equal(await collection.read.balanceOf([to, 2n]), 100n);
    });

    it('setMaxSupply cannot go below the amount already minted, and 0 lifts the cap', async () => {
      const to = freshAddress();
      const collection = (await deployCollection(chain(), variant)).as();
      await chain().mined(collection.write.mint([to, 1n, 6n]));
      await assertReverts(collection.write.setMaxSupply([1n, 5n]), 'MaxSupplyBelowMinted');
      await chain().mined(collection.write.setMaxSupply([1n, 6n]));
      await assertReverts(collection.write.mint([to, 1n, 1n]), 'MaxSupplyExceeded');
      await chain().mined(collection.write.setMaxSupply([1n, 0n]));
      await chain().mined(collection.write.mint([to, 1n, 1n]));
      assert.equal(await collection.read.balanceOf([to, 1n]), 7n);
    });

    it('the collection-wide maxSupply caps units minted over all ids, and burning frees no room', async () => {
      const holder = chain().wallet(1);
      const { as } = await deployCollection(chain(), variant, { maxSupply: 10n });
      const collection = as();
      await chain().mined(collection.write.mintBatch([holder.account.address, [1n, 2n], [4n, 4n]]));
      await assertReverts(collection.write.mint([holder.account.address, 3n, 3n]), 'MaxSupplyExceeded');
      await chain().mined(as(holder).write.burn([holder.account.address, 1n, 4n]));
      await assertReverts(collection.write.mint([holder.account.address, 3n, 3n]), 'MaxSupplyExceeded');
      await chain().mined(collection.write.mint([holder.account.address, 3n, 2n]));
      assert.equal(await collection.read.totalMinted(), 10n);
      assert.equal(await collection.read.balanceOf([holder.account.address, 1n]), 0n);
    });

    it('an account without MINTER_ROLE cannot mint, and only the admin sets supply caps', async () => {
      const stranger = chain().wallet(2);
      const collection = (await deployCollection(chain(), variant)).as(stranger);
      const to = stranger.account.address;
      await assertReverts(collection.write.mint([to, 1n, 1n]), 'AccessControlUnauthorizedAccount');
      await assertReverts(collection.write.mintBatch([to, [1n], [1n]]), 'AccessControlUnauthorizedAccount');
      await assertReverts(collection.write.setMaxSupply([1n, 1n]), 'AccessControlUnauthorizedAccount');
    });

    it('royaltyInfo pays the default royalty and a per-token override', async () => {
      const defaultReceiver = freshAddress();
      const tokenReceiver = freshAddress();
      const { as } = await deployCollection(chain(), variant, {
        royaltyReceiver: defaultReceiver,
        royaltyBps: 750n,
      });
      const collection = as();
      assert.deepEqual(await collection.read.royaltyInfo([1n, 1_000_000n]), [defaultReceiver, 75_000n]);
      await chain().mined(collection.write.setTokenRoyalty([1n, tokenReceiver, 10_000n]));
      assert.deepEqual(await collection.read.royaltyInfo([1n, 1_000_000n]), [tokenReceiver, 1_000_000n]);
      assert.deepEqual(await collection.read.royaltyInfo([2n, 1_000_000n]), [defaultReceiver, 75_000n]);
      await assertReverts(
        collection.write.setTokenRoyalty([1n, tokenReceiver, 10_001n]),
        'ERC2981InvalidTokenRoyalty',
      );
    });

    it('burn is allowed to the holder and an approved operator, and to nobody else', async () => {
      const holder = chain().wallet(1);
      const operator = chain().wallet(4);
      const { as } = await deployCollection(chain(), variant);
      await chain().mined(as().write.mint([holder.account.address, 1n, 5n]));
      await assertReverts(
        as(operator).write.burn([holder.account.address, 1n, 1n]),
        'ERC1155MissingApprovalForAll',
      );
      await chain().mined(as(holder).write.burn([holder.account.address, 1n, 2n]));
      await chain().mined(as(holder).write.setApprovalForAll([operator.account.address, true]));
      await chain().mined(as(operator).write.burn([holder.account.address, 1n, 3n]));
      assert.equal(await as().read.balanceOf([holder.account.address, 1n]), 0n);
    });

    it('a base URI change emits ERC-4906 BatchMetadataUpdate over all ids', async () => {
      const collection = (await deployCollection(chain(), variant)).as();
      const receipt = await chain().mined(collection.write.setBaseURI(['https://meta.example/c/']));
      const batch = parseEventLogs({ abi: erc1155Abi, logs: receipt.logs, eventName: 'BatchMetadataUpdate' });
      assert.deepEqual(
        batch.map((e) => [e.args._fromTokenId, e.args._toTokenId]),
        [[0n, maxUint256]],
      );
      assert.equal(await collection.read.uri([9n]), 'https://meta.example/c/9');
    });
  });
}

describe('FrozenERC1155 metadata freeze', () => {
  it('changes URIs until freezeMetadata, then every change reverts MetadataIsFrozen for good', async () => {
    const collection = (await deployCollection(chain(), 'FrozenERC1155')).as();
    await chain().mined(collection.write.setBaseURI(['https://before/']));
    await chain().mined(collection.write.freezeMetadata());
    assert.equal(await collection.read.metadataFrozen(), true);
    await assertReverts(collection.write.setBaseURI(['https://after/']), 'MetadataIsFrozen');
    await assertReverts(collection.write.setContractURI(['https://after']), 'MetadataIsFrozen');
    assert.equal(await collection.read.uri([1n]), 'https://before/1');
  });
});

describe('FlexibleERC1155 metadata', () => {
  it('the admin changes the base URI and contract URI at any time', async () => {
    const collection = (await deployCollection(chain(), 'FlexibleERC1155')).as();
    await chain().mined(collection.write.setBaseURI(['https://one/']));
    await chain().mined(collection.write.setContractURI(['https://one']));
    await chain().mined(collection.write.setBaseURI(['https://two/']));
    assert.equal(await collection.read.uri([3n]), 'https://two/3');
    assert.equal(await collection.read.contractURI(), 'https://one');
  });
});
