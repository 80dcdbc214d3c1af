import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Abi, keccak256, maxUint256, parseEventLogs, toHex, zeroAddress } from 'viem';
import { platformContracts } from '../../src/chain/artifacts.ts';
import { assertReverts, useTestChain } from '../chain/anvil.ts';
import { BASE_URI, CONTRACT_URI, deployCollection, freshAddress, INTERFACE_IDS } from './collections.ts';

const chain = useTestChain();
const erc721Abi = platformContracts.FlexibleERC721.abi;

for (const variant of ['FlexibleERC721', 'FrozenERC721', 'SignatureERC721'] as const) {
  describe(`${variant} (ERC-721 rules shared by every ERC-721 variant)`, () => {
    it('reports ERC-165 support for ERC721, ERC721Metadata, ERC2981, AccessControl and ERC-4906, not ERC1155', async () => {
      const collection = (await deployCollection(chain(), variant)).as();
      for (const id of [
        INTERFACE_IDS.ERC165,
        INTERFACE_IDS.ERC721,
        INTERFACE_IDS.ERC721Metadata,
        INTERFACE_IDS.ERC2981,
        INTERFACE_IDS.AccessControl,
        INTERFACE_IDS.ERC4906,
      ]) {
        assert.equal(await collection.read.supportsInterface([id]), true, `supports ${id}`);
      }
      assert.equal(await collection.read.supportsInterface([INTERFACE_IDS.ERC1155]), false);
      assert.equal(await collection.read.supportsInterface(['0xffffffff']), false);
    });

    it('grants the admin the admin, minter and voucher signer roles at deployment', async () => {
      const admin = chain().wallet(0).account.address;
      const collection = (await deployCollection(chain(), variant)).as();
      assert.equal(await collection.read.hasRole([toHex(0, { size: 32 }), admin]), true);
      assert.equal(await collection.read.hasRole([keccak256(toHex('MINTER_ROLE')), admin]), true);
      assert.equal(await collection.read.hasRole([keccak256(toHex('VOUCHER_SIGNER_ROLE')), admin]), true);
      assert.equal(await collection.read.MINTER_ROLE(), keccak256(toHex('MINTER_ROLE')));
    });

    it('mint assigns the given id, and tokenURI is the base URI followed by the decimal id', async () => {
      const to = freshAddress();
      const collection = (await deployCollection(chain(), variant)).as();
      await chain().mined(collection.write.mint([to, 1234567890123n]));
      assert.equal(await collection.read.ownerOf([1234567890123n]), to);
      assert.equal(await collection.read.tokenURI([1234567890123n]), `${BASE_URI}1234567890123`);
      assert.equal(await collection.read.contractURI(), CONTRACT_URI);
      assert.equal(await collection.read.name(), 'Test Collection');
      assert.equal(await collection.read.symbol(), 'TST');
      assert.equal(await collection.read.totalSupply(), 1n);
    });

    it('mintWithURI makes tokenURI return the given URI instead of base URI + id', async () => {
      const to = freshAddress();
      const collection = (await deployCollection(chain(), variant)).as();
      const receipt = await chain().mined(collection.write.mintWithURI([to, 7n, 'ipfs://bafy/7.json']));
      assert.equal(await collection.read.ownerOf([7n]), to);
      assert.equal(await collection.read.tokenURI([7n]), 'ipfs://bafy/7.json');
      const updates = parseEventLogs({ abi: erc721Abi, logs: receipt.logs, eventName: 'MetadataUpdate' });
      assert.deepEqual(
        updates.map((e) => e.args._tokenId),
        [7n],
      );
    });

    it('mintBatch mints each id to its own recipient in one transaction', async () => {
      const recipients = [freshAddress(), freshAddress(), freshAddress()];
      const collection = (await deployCollection(chain(), variant)).as();
      const receipt = await chain().mined(collection.write.mintBatch([recipients, [10n, 20n, 30n]]));
      const transfers = parseEventLogs({ abi: erc721Abi, logs: receipt.logs, eventName: 'Transfer' });
      assert.deepEqual(
        transfers.map((e) => [e.args.from, e.args.to, e.args.tokenId]),
        [
          [zeroAddress, recipients[0], 10n],
          [zeroAddress, recipients[1], 20n],
          [zeroAddress, recipients[2], 30n],
        ],
      );
      assert.equal(await collection.read.totalMinted(), 3n);
    });

    it('mintBatch rejects recipient and id lists of different lengths', async () => {
      const collection = (await deployCollection(chain(), variant)).as();
      await assertReverts(collection.write.mintBatch([[freshAddress()], [1n, 2n]]), 'ArrayLengthMismatch');
    });

    it('mintBatchNoId assigns sequential ids from 1, one Transfer event per id', async () => {
      const to = freshAddress();
      const collection = (await deployCollection(chain(), variant)).as();
      const first = await chain().mined(collection.write.mintBatchNoId([to, 3n]));
      const second = await chain().mined(collection.write.mintBatchNoId([to, 2n]));
      const ids = [first, second].flatMap((receipt) =>
        parseEventLogs({ abi: erc721Abi, logs: receipt.logs, eventName: 'Transfer' }).map(
          (e) => e.args.tokenId,
        ),
      );
      assert.deepEqual(ids, [1n, 2n, 3n, 4n, 5n]);
      assert.equal(await collection.read.balanceOf([to]), 5n);
      assert.equal(await collection.read.nextTokenId(), 6n);
    });

    it('mintBatchNoId skips ids already minted explicitly', async () => {
      const to = freshAddress();
      const collection = (await deployCollection(chain(), variant)).as();
      await chain().mined(
        collection.write.mintBatch([
          [to, to],
          [2n, 3n],
        ]),
      );
      const receipt = await chain().mined(collection.write.mintBatchNoId([to, 3n]));
      const ids = parseEventLogs({ abi: erc721Abi, logs: receipt.logs, eventName: 'Transfer' }).map(
        (e) => e.args.tokenId,
      );
      assert.deepEqual(ids, [1n, 4n, 5n]);
    });

    it('mintBatchNoId rejects a quantity of 0', async () => {
      const collection = (await deployCollection(chain(), variant)).as();
      await assertReverts(collection.write.mintBatchNoId([freshAddress(), 0n]), 'InvalidQuantity');
    });

    it('a token id is minted once only, even after it was burned', async () => {
      const owner = chain().wallet(1);
      const { as } = await deployCollection(chain(), variant);
      await chain().mined(as().write.mint([owner.account.address, 5n]));
      await assertReverts(as().write.mint([freshAddress(), 5n]), 'TokenAlreadyMinted');
      await chain().mined(as(owner).write.burn([5n]));
      await assertReverts(as().write.mint([freshAddress(), 5n]), 'TokenAlreadyMinted');
    });

    it('maxSupply caps tokens ever minted over every mint path, and burning frees no room', async () => {
      const owner = chain().wallet(1);
      const { as } = await deployCollection(chain(), variant, { maxSupply: 3n });
      const collection = as();
      assert.equal(await collection.read.maxSupply(), 3n);
      await chain().mined(collection.write.mintBatchNoId([owner.account.address, 2n]));
      await assertReverts(collection.write.mintBatchNoId([owner.account.address, 2n]), 'MaxSupplyExceeded');
      await assertReverts(
        collection.write.mintBatch([
          [freshAddress(), freshAddress()],
          [8n, 9n],
        ]),
        'MaxSupplyExceeded',
      );
      await chain().mined(collection.write.mint([owner.account.address, 100n]));
      await chain().mined(as(owner).write.burn([100n]));
      await assertReverts(collection.write.mint([owner.account.address, 101n]), 'MaxSupplyExceeded');
      await assertReverts(
        collection.write.mintWithURI([owner.account.address, 102n, 'x']),
        'MaxSupplyExceeded',
      );
      assert.equal(await collection.read.totalMinted(), 3n);
      assert.equal(await collection.read.totalSupply(), 2n);
    });

    it('an account without MINTER_ROLE cannot mint by any path', async () => {
      const stranger = chain().wallet(2);
      const { as } = await deployCollection(chain(), variant);
      const collection = as(stranger);
      const to = stranger.account.address;
      await assertReverts(collection.write.mint([to, 1n]), 'AccessControlUnauthorizedAccount');
      await assertReverts(collection.write.mintWithURI([to, 1n, 'x']), 'AccessControlUnauthorizedAccount');
      await assertReverts(collection.write.mintBatch([[to], [1n]]), 'AccessControlUnauthorizedAccount');
      await assertReverts(collection.write.mintBatchNoId([to, 1n]), 'AccessControlUnauthorizedAccount');
    });

    it('a minter granted MINTER_ROLE by the admin can mint, and cannot once revoked', async () => {
      const minter = chain().wallet(3);
      const { as } = await deployCollection(chain(), variant);
      const role = await as().read.MINTER_ROLE();
      await chain().mined(as().write.grantRole([role, minter.account.address]));
      await chain().mined(as(minter).write.mint([minter.account.address, 1n]));
      await chain().mined(as().write.revokeRole([role, minter.account.address]));
      await assertReverts(
        as(minter).write.mint([minter.account.address, 2n]),
        'AccessControlUnauthorizedAccount',
      );
    });

    it('royaltyInfo pays the default royalty, a per-token override, and the default again after reset', async () => {
      const defaultReceiver = freshAddress();
      const tokenReceiver = freshAddress();
      const { as } = await deployCollection(chain(), variant, {
        royaltyReceiver: defaultReceiver,
        royaltyBps: 500n,
      });
      const collection = as();
      assert.deepEqual(await collection.read.royaltyInfo([1n, 10_000n]), [defaultReceiver, 500n]);
      await chain().mined(collection.write.setTokenRoyalty([1n, tokenReceiver, 250n]));
      assert.deepEqual(await collection.read.royaltyInfo([1n, 10_000n]), [tokenReceiver, 250n]);
      assert.deepEqual(await collection.read.royaltyInfo([2n, 10_000n]), [defaultReceiver, 500n]);
      await chain().mined(collection.write.setDefaultRoyalty([tokenReceiver, 1_000n]));
      assert.deepEqual(await collection.read.royaltyInfo([2n, 1_000n]), [tokenReceiver, 100n]);
      await chain().mined(collection.write.resetTokenRoyalty([1n]));
      assert.deepEqual(await collection.read.royaltyInfo([1n, 10_000n]), [tokenReceiver, 1_000n]);
      await chain().mined(collection.write.deleteDefaultRoyalty());
      assert.deepEqual(await collection.read.royaltyInfo([1n, 10_000n]), [zeroAddress, 0n]);
    });

    it('has no royalty when deployed without a royalty receiver', async () => {
      const collection = (await deployCollection(chain(), variant)).as();
      assert.deepEqual(await collection.read.royaltyInfo([1n, 10_000n]), [zeroAddress, 0n]);
    });

    it('only the admin sets royalties and URIs', async () => {
      const stranger = chain().wallet(2);
      const collection = (await deployCollection(chain(), variant)).as(stranger);
      const who = stranger.account.address;
      await assertReverts(
        collection.write.setDefaultRoyalty([who, 100n]),
        'AccessControlUnauthorizedAccount',
      );
      await assertReverts(
        collection.write.setTokenRoyalty([1n, who, 100n]),
        'AccessControlUnauthorizedAccount',
      );
      await assertReverts(collection.write.setBaseURI(['https://evil/']), 'AccessControlUnauthorizedAccount');
      await assertReverts(
        collection.write.setContractURI(['https://evil']),
        'AccessControlUnauthorizedAccount',
      );
    });

    it('burn is allowed to the owner and an approved operator, and to nobody else', async () => {
      const owner = chain().wallet(1);
      const operator = chain().wallet(4);
      const stranger = chain().wallet(2);
      const { as } = await deployCollection(chain(), variant);
      await chain().mined(
        as().write.mintBatch([
          [owner.account.address, owner.account.address],
          [1n, 2n],
        ]),
      );
      await assertReverts(as(stranger).write.burn([1n]), 'ERC721InsufficientApproval');
      await assertReverts(as().write.burn([1n]), 'ERC721InsufficientApproval');
      await chain().mined(as(owner).write.burn([1n]));
      await chain().mined(as(owner).write.approve([operator.account.address, 2n]));
      await chain().mined(as(operator).write.burn([2n]));
      assert.equal(await as().read.exists([1n]), false);
      assert.equal(await as().read.exists([2n]), false);
      assert.equal(await as().read.totalSupply(), 0n);
      await assertReverts(as().read.tokenURI([1n]), 'ERC721NonexistentToken');
    });

    it('a base URI change emits ERC-4906 BatchMetadataUpdate over all ids, a contract URI change ContractURIUpdated', async () => {
      const to = freshAddress();
      const collection = (await deployCollection(chain(), variant)).as();
      await chain().mined(collection.write.mint([to, 3n]));
      const receipt = await chain().mined(collection.write.setBaseURI(['https://meta.example/c/']));
      const batch = parseEventLogs({ abi: erc721Abi, logs: receipt.logs, eventName: 'BatchMetadataUpdate' });
      assert.deepEqual(
        batch.map((e) => [e.args._fromTokenId, e.args._toTokenId]),
        [[0n, maxUint256]],
      );
      assert.equal(await collection.read.tokenURI([3n]), 'https://meta.example/c/3');
      const contractReceipt = await chain().mined(
        collection.write.setContractURI(['https://meta.example/c']),
      );
      const updated = parseEventLogs({
        abi: erc721Abi,
        logs: contractReceipt.logs,
        eventName: 'ContractURIUpdated',
      });
      assert.equal(updated.length, 1);
      assert.equal(await collection.read.contractURI(), 'https://meta.example/c');
    });
  });
}

describe('FrozenERC721 metadata freeze', () => {
  it('changes URIs until freezeMetadata, then every change reverts MetadataIsFrozen for good', async () => {
    const to = freshAddress();
    const collection = (await deployCollection(chain(), 'FrozenERC721')).as();
    await chain().mined(collection.write.mint([to, 1n]));
    await chain().mined(collection.write.setBaseURI(['https://before/']));
    assert.equal(await collection.read.metadataFrozen(), false);
    const receipt = await chain().mined(collection.write.freezeMetadata());
    const frozen = parseEventLogs({
      abi: platformContracts.FrozenERC721.abi,
      logs: receipt.logs,
      eventName: 'MetadataFrozen',
    });
    assert.equal(frozen.length, 1);
    assert.equal(await collection.read.metadataFrozen(), true);
    await assertReverts(collection.write.setBaseURI(['https://after/']), 'MetadataIsFrozen');
    await assertReverts(collection.write.setContractURI(['https://after']), 'MetadataIsFrozen');
    await assertReverts(collection.write.freezeMetadata(), 'MetadataIsFrozen');
    assert.equal(await collection.read.tokenURI([1n]), 'https://before/1');
    assert.equal(await collection.read.contractURI(), CONTRACT_URI);
  });

  it('only the admin freezes metadata', async () => {
    const collection = (await deployCollection(chain(), 'FrozenERC721')).as(chain().wallet(2));
    await assertReverts(collection.write.freezeMetadata(), 'AccessControlUnauthorizedAccount');
  });
});

describe('FlexibleERC721 metadata', () => {
  it('has no freeze: the base URI can change any number of times', async () => {
    const collection = (await deployCollection(chain(), 'FlexibleERC721')).as();
    assert.equal(
      (collection.abi as Abi).some((item) => item.type === 'function' && item.name === 'freezeMetadata'),
      false,
    );
    await chain().mined(collection.write.setBaseURI(['https://one/']));
    await chain().mined(collection.write.setBaseURI(['https://two/']));
    assert.equal(await collection.read.baseURI(), 'https://two/');
  });
});
