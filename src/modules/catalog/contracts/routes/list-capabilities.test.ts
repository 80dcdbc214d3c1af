import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AbiFunction, toFunctionSignature } from 'viem';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { CAPABILITY_NAMES, capabilityDefinition } from '../../../../chain/capabilities.ts';

interface KnownCapability {
  name: string;
  description: string;
  abi: AbiFunction[];
}
interface Page {
  results: KnownCapability[];
  cursor: string | null;
  has_more: boolean;
  total_results: number;
}

const SORTED_NAMES = [...CAPABILITY_NAMES].sort();

/** The known capabilities (public), with the pagination of docs/api.md#pagination. */
describe('GET /v1/public/capabilities', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  function list(query: Record<string, string> = {}) {
    return env.call('GET', '/v1/public/capabilities', { query });
  }

  async function page(query: Record<string, string>): Promise<Page> {
    const response = await list(query);
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  }

  async function walk(query: Record<string, string>): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const current: Page = await page({ ...query, ...(cursor && { cursor }) });
      assert.equal(current.total_results, CAPABILITY_NAMES.length);
      assert.equal(current.cursor === null, !current.has_more);
      names.push(...current.results.map((c) => c.name));
      cursor = current.cursor;
    } while (cursor);
    return names;
  }

  it('answers without credentials with every capability, ordered by name, in the list envelope', async () => {
    const body = await page({});
    assert.deepEqual(Object.keys(body).sort(), ['cursor', 'has_more', 'results', 'total_results']);
    assert.deepEqual(
      body.results.map((c) => c.name),
      SORTED_NAMES,
    );
    assert.equal(body.has_more, false);
    assert.equal(body.cursor, null);
    assert.equal(body.total_results, CAPABILITY_NAMES.length);
  });

  it('gives each capability its description and the ABI of the functions it requires', async () => {
    const body = await page({});
    for (const capability of body.results) {
      const definition = capabilityDefinition(capability.name as (typeof CAPABILITY_NAMES)[number]);
      assert.ok(capability.description.length > 0, capability.name);
      assert.deepEqual(
        capability.abi.map((fn) => toFunctionSignature(fn)),
        definition.abi.map((fn) => toFunctionSignature(fn)),
      );
    }
    const mintSingle = body.results.find((c) => c.name === 'ADMIN_MINT_SINGLE')!;
    assert.deepEqual(
      mintSingle.abi.map((fn) => toFunctionSignature(fn)),
      ['mint(address,uint256)', 'mint(address,uint256,uint256)'],
    );
    const voucher = body.results.find((c) => c.name === 'MINT_VOUCHER')!;
    const mintWithVoucher = voucher.abi.find((fn) => fn.name === 'mintWithVoucher')!;
    assert.equal(mintWithVoucher.stateMutability, 'payable');
    assert.equal(mintWithVoucher.inputs[0]!.type, 'tuple');
    assert.equal((mintWithVoucher.inputs[0] as { components: readonly unknown[] }).components.length, 10);
  });

  it('pages through the registry with the cursor, ascending and descending, never repeating or skipping', async () => {
    assert.deepEqual(await walk({ limit: '5' }), SORTED_NAMES);
    assert.deepEqual(await walk({ limit: '4', order_direction: 'DESC' }), [...SORTED_NAMES].reverse());
    assert.deepEqual(await walk({ limit: '1', order_direction: 'ASC' }), SORTED_NAMES);
  });

  it('answers 400 INVALID_CURSOR to a forged cursor or one issued for another order', async () => {
    for (const cursor of [
      'garbage',
      Buffer.from('{"k":1}').toString('base64url'),
      Buffer.from('[]').toString('base64url'),
    ]) {
      const response = await list({ cursor });
      assertError(response, 400, 'INVALID_CURSOR');
    }
    const first = await page({ limit: '2' });
    assert.ok(first.cursor);
    const reused = await list({ limit: '2', cursor: first.cursor, order_direction: 'DESC' });
    assertError(reused, 400, 'INVALID_CURSOR');
  });

  it('refuses a cursor issued by another list', async () => {
    await env.createOrganization();
    const organizations = await env.call('GET', '/v1/organizations', {
      token: env.platformAdmin.token,
      query: { limit: '1' },
    });
    assert.equal(organizations.statusCode, 200, organizations.body);
    const foreign = organizations.json().cursor;
    assert.ok(foreign, organizations.body);
    const response = await list({ cursor: foreign });
    assertError(response, 400, 'INVALID_CURSOR');
  });

  it('answers 400 VALIDATION_FAILED to a limit out of 1..100 and unknown parameters', async () => {
    for (const query of <Record<string, string>[]>[
      { limit: '0' },
      { limit: '101' },
      { order_direction: 'UP' },
      { name: 'ERC721' },
    ]) {
      const response = await list(query);
      assertError(response, 400, 'VALIDATION_FAILED');
    }
  });
});
