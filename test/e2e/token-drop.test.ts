import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Address, getAddress, parseAbi } from 'viem';
import { freePort } from '../../src/lib/net.ts';
import { type FlowTest, setupFlowTest } from '../chain/flow.ts';

const ERC721 = parseAbi([
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function tokenURI(uint256 tokenId) view returns (string)',
  'function balanceOf(address owner) view returns (uint256)',
]);

interface MintRecord {
  id: string;
  item_id: string;
  token_id: string | null;
  state: string;
  transaction_id: string;
  to_address: string;
}

/**
 * A whole drop through the API alone, on a real chain, read back as a marketplace would:
 * item type → collection deployed through the relayer → 250 items in bulk → lock the collection →
 * three mint requests by collection_id → every item MINTED and owned on-chain by to_address, its
 * tokenURI served by the service over HTTP → ten transfers → new owners on-chain.
 */
describe('a token drop, end to end', () => {
  let t: FlowTest;
  let base: string;
  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await setupFlowTest({ PUBLIC_BASE_URL: base });
    await t.env.app.listen({ port, host: '127.0.0.1' });
  });
  after(async () => {
    await t?.close();
  });

  const api = async (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown, status = 200) => {
    const response = await t.env.call(method, url, {
      token: t.admin.token,
      ...(body === undefined ? {} : { body }),
    });
    assert.equal(response.statusCode, status, `${method} ${url}: ${response.body}`);
    return response.json();
  };

  it('mints 250 items in three requests and transfers ten, with on-chain owners and metadata to match', async () => {
    const itemType = await api(
      'POST',
      '/v1/item-types',
      {
        name: 'Card',
        json_schema: {
          type: 'object',
          required: ['name', 'power'],
          properties: {
            name: { type: 'string' },
            power: { type: 'integer', minimum: 0 },
            image: { type: 'string' },
          },
        },
      },
      201,
    );
    const collection = await api(
      'POST',
      '/v1/collections',
      {
        name: 'Drop',
        default_item_type_id: itemType.id,
        deployment_request: {
          type: 'PLATFORM',
          network_id: t.networkId,
          platform: { symbol: 'DRP', variant: 'FlexibleERC721' },
        },
      },
      201,
    );
    assert.equal(collection.deployment.address, null);
    assert.deepEqual(collection.deployment.capabilities, []);
    const deployed = await t.until(async () => {
      const status = await api('GET', `/v1/collections/${collection.id}/deployment-request`);
      assert.notEqual(status.status, 'FAILED');
      return status.status === 'SUCCESS' ? status : undefined;
    }, 'the deployment');
    assert.equal(deployed.transaction_id, collection.deployment.transaction_id);
    const contract = (await api('GET', `/v1/collections/${collection.id}`)).deployment.address as Address;
    assert.equal(contract, getAddress(contract));

    const created = await api(
      'POST',
      '/v1/items/bulk',
      {
        items: Array.from({ length: 250 }, (_, i) => ({
          collection_id: collection.id,
          attributes: { name: `Card ${i}`, power: i, image: `https://img.test/${i}.png` },
        })),
      },
      201,
    );
    assert.equal(created.item_ids.length, 250);

    const locked = await api('POST', '/v1/items/lock', { collection_id: collection.id }, 201);
    assert.equal(locked.lock_outputs.length, 250);
    const tokenOf = new Map<string, string>(
      locked.lock_outputs.map((o: { item_id: string; token_id: string }) => [o.item_id, o.token_id]),
    );
    // AUTOMATIC ids follow creation order: item i holds token i + 1.
    for (const [i, id] of (created.item_ids as string[]).entries())
      assert.equal(tokenOf.get(id), String(i + 1));

    // Minted to the organization's wallet, which may then transfer them.
    const holder = getAddress(t.wallet.address);
    const records: MintRecord[] = [];
    for (const expected of [100, 100, 50]) {
      const response = await api(
        'POST',
        '/v1/mint-requests',
        { collection_id: collection.id, to_address: holder },
        201,
      );
      assert.equal(response.mint_requests.length, expected);
      records.push(...response.mint_requests);
    }
    assert.equal(new Set(records.map((r) => r.item_id)).size, 250, 'every item exactly once');
    // One transaction per request: the contract has a batch mint.
    assert.equal(new Set(records.map((r) => r.transaction_id)).size, 3);
    const transactions = await t.settled([...new Set(records.map((r) => r.transaction_id))]);
    assert.ok(transactions.every((row) => row.on_chain_status === 'SUCCESS'));

    await t.until(async () => {
      const page = await api('GET', `/v1/mint-requests?collection_id=${collection.id}&limit=1000`);
      return page.results.every((r: MintRecord) => r.state === 'COMPLETED') && page.total_results === 250
        ? true
        : undefined;
    }, 'the mint requests to complete');
    const items = await api('GET', `/v1/items?collection_id=${collection.id}&limit=1000`);
    assert.equal(items.total_results, 250);
    assert.ok(items.results.every((item: { token_status: string }) => item.token_status === 'MINTED'));

    const client = t.chain.publicClient;
    assert.equal(
      await client.readContract({
        address: contract,
        abi: ERC721,
        functionName: 'balanceOf',
        args: [holder],
      }),
      250n,
    );
    for (const tokenId of [1n, 137n, 250n]) {
      assert.equal(
        await client.readContract({
          address: contract,
          abi: ERC721,
          functionName: 'ownerOf',
          args: [tokenId],
        }),
        holder,
      );
    }

    // The token URI as an indexer reads it: from the contract, fetched over HTTP.
    const uri = await client.readContract({
      address: contract,
      abi: ERC721,
      functionName: 'tokenURI',
      args: [137n],
    });
    assert.equal(uri, `${base}/v1/metadata/${collection.id}/137`);
    const metadata = (await (await fetch(uri)).json()) as Record<string, unknown>;
    assert.equal(metadata.name, 'Card 136');
    assert.equal(metadata.image, 'https://img.test/136.png');
    assert.deepEqual(metadata.attributes, [{ trait_type: 'power', value: 136 }]);

    // Ten transfers by token range, to ten new owners one request each.
    const owners: Address[] = Array.from({ length: 10 }, (_, i) =>
      getAddress(`0x${(0xa11ce0 + i).toString(16).padStart(40, '0')}`),
    );
    const transfers = await Promise.all(
      owners.map(async (owner, i) => {
        const id = String(i + 1);
        const response = await api(
          'POST',
          '/v1/transfer-requests',
          { collection_id: collection.id, token_ranges: [{ from_id: id, to_id: id }], to_address: owner },
          201,
        );
        assert.equal(response.transfer_requests.length, 1);
        return response.transfer_requests[0] as MintRecord;
      }),
    );
    const settled = await t.settled(transfers.map((r) => r.transaction_id));
    assert.ok(settled.every((row) => row.on_chain_status === 'SUCCESS'));
    for (const [i, owner] of owners.entries()) {
      assert.equal(
        await client.readContract({
          address: contract,
          abi: ERC721,
          functionName: 'ownerOf',
          args: [BigInt(i + 1)],
        }),
        owner,
      );
    }
    await t.until(async () => {
      const page = await api('GET', `/v1/transfer-requests?collection_id=${collection.id}`);
      return page.results.length === 10 && page.results.every((r: MintRecord) => r.state === 'COMPLETED')
        ? true
        : undefined;
    }, 'the transfer requests to complete');
    // A transferred token is no longer the organization's to transfer again.
    const again = await t.env.call('POST', '/v1/transfer-requests', {
      token: t.admin.token,
      body: { collection_id: collection.id, token_ids: ['1'], to_address: owners[1] },
    });
    assert.equal(again.statusCode, 409, again.body);
  });
});
