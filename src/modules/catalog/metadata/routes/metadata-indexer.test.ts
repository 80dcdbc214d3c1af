import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Abi, Address } from 'viem';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { freePort } from '../../../../lib/net.ts';
import { contractMetadataUri, tokenMetadataBaseUri } from '../metadata.service.ts';

const ZERO = '0x0000000000000000000000000000000000000000';

// PUBLIC_BASE_URL is part of the config the app is built with, and the URIs baked into the
// contracts must name the address the app then listens on, so the port is chosen (freePort)
// before the app exists: another process taking it in between makes listen fail loudly.

/**
 * What a marketplace indexer does: read tokenURI / uri / contractURI from the contract on chain,
 * fetch that exact URL over HTTP from the running service, and parse the metadata.
 */
describe('metadata as a marketplace indexer reads it', () => {
  let flow: FlowTest;
  let publicBaseUrl: string;

  before(async () => {
    const port = await freePort();
    publicBaseUrl = `http://127.0.0.1:${port}`;
    flow = await setupFlowTest({ PUBLIC_BASE_URL: publicBaseUrl });
    await flow.env.app.listen({ port, host: '127.0.0.1' });
  });
  after(() => flow?.close());

  /** A collection row, then its contract deployed with the service's metadata URIs (minter: dev account 0). */
  async function deployCollection(variant: 'FlexibleERC721' | 'FlexibleERC1155', name: string) {
    const artifact = platformContracts[variant];
    const row = await insertCollection(flow.env.database.db, {
      organizationId: flow.organizationId,
      name,
      tokenType: variant === 'FlexibleERC721' ? 'ERC721' : 'ERC1155',
      abi: [...artifact.abi],
      networkId: flow.networkId,
    });
    const minter = flow.chain.wallet(0);
    const address = await flow.chain.deploy(
      minter,
      { abi: artifact.abi as Abi, bytecode: artifact.bytecode },
      [
        name,
        'IDX',
        tokenMetadataBaseUri(publicBaseUrl, row.id),
        contractMetadataUri(publicBaseUrl, row.id),
        minter.account.address,
        0n,
        ZERO,
        0n,
      ],
    );
    await flow.env.database.db
      .updateTable('collections')
      .set({ contract_address: address, deployment_status: 'SUCCESS' })
      .where('id', '=', row.id)
      .execute();
    return { id: row.id, address, minter };
  }

  async function insertMintedItem(
    collectionId: string,
    tokenId: bigint,
    attributes: Record<string, unknown>,
  ) {
    await flow.env.database.db
      .insertInto('items')
      .values({
        id: uuidv7(),
        organization_id: flow.organizationId,
        collection_id: collectionId,
        attributes: JSON.stringify(attributes),
        token_id: tokenId,
        token_status: 'MINTED',
        minted_supply: 1n,
      })
      .execute();
  }

  async function fetchJson(url: string): Promise<Record<string, unknown>> {
    const response = await fetch(url);
    assert.equal(response.status, 200, `${url}: ${await response.clone().text()}`);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    return (await response.json()) as Record<string, unknown>;
  }

  it('serves the URL an ERC-721 tokenURI names: name, image and traits', async () => {
    const { id, address, minter } = await deployCollection('FlexibleERC721', 'Indexed 721');
    const artifact = platformContracts.FlexibleERC721;
    const holder = flow.chain.wallet(3).account.address;
    await flow.chain.mined(
      minter.writeContract({ address, abi: artifact.abi, functionName: 'mint', args: [holder, 17n] }),
    );
    await insertMintedItem(id, 17n, {
      name: 'Seventeen',
      image: 'https://img.test/17.png',
      background: 'night',
      level: 3,
    });
    const tokenUri = await flow.chain.publicClient.readContract({
      address,
      abi: artifact.abi,
      functionName: 'tokenURI',
      args: [17n],
    });
    assert.equal(tokenUri, `${publicBaseUrl}/v1/metadata/${id}/17`);
    assert.deepEqual(await fetchJson(tokenUri), {
      name: 'Seventeen',
      image: 'https://img.test/17.png',
      attributes: [
        { trait_type: 'background', value: 'night' },
        { trait_type: 'level', value: 3 },
      ],
    });

    const contractUri = await flow.chain.publicClient.readContract({
      address,
      abi: artifact.abi,
      functionName: 'contractURI',
    });
    assert.deepEqual(await fetchJson(contractUri), { name: 'Indexed 721', symbol: 'TST' });
  });

  it('serves the URL an ERC-1155 uri names, and 404 for an id minted on chain the service has no item for', async () => {
    const { id, address, minter } = await deployCollection('FlexibleERC1155', 'Indexed 1155');
    const artifact = platformContracts.FlexibleERC1155;
    const holder = flow.chain.wallet(4).account.address as Address;
    await flow.chain.mined(
      minter.writeContract({ address, abi: artifact.abi, functionName: 'mint', args: [holder, 5n, 10n] }),
    );
    await flow.chain.mined(
      minter.writeContract({ address, abi: artifact.abi, functionName: 'mint', args: [holder, 6n, 1n] }),
    );
    await insertMintedItem(id, 5n, { name: 'Potion', image: 'https://img.test/potion.png', heal: 50 });
    const uri = await flow.chain.publicClient.readContract({
      address,
      abi: artifact.abi,
      functionName: 'uri',
      args: [5n],
    });
    assert.equal(uri, `${publicBaseUrl}/v1/metadata/${id}/5`);
    const metadata = await fetchJson(uri);
    assert.equal(metadata.name, 'Potion');
    assert.equal(metadata.image, 'https://img.test/potion.png');
    assert.deepEqual(metadata.attributes, [{ trait_type: 'heal', value: 50 }]);

    const unknown = await flow.chain.publicClient.readContract({
      address,
      abi: artifact.abi,
      functionName: 'uri',
      args: [6n],
    });
    const response = await fetch(unknown);
    assert.equal(response.status, 404);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
  });
});
