import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { erc20Abi } from 'viem';
import { assertError, assertFields } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import {
  PLATFORM_CONTRACT_NAMES,
  PLATFORM_CONTRACT_STANDARD,
  platformContracts,
} from '../../../../chain/artifacts.ts';
import { capabilitiesOf } from '../../../../chain/capabilities.ts';

const ADMIN = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const ZERO = '0x0000000000000000000000000000000000000000';
const PLATFORM_ARGS = ['Name', 'SYM', 'https://tokens.test/m/', 'https://tokens.test/c', ADMIN, '0', ZERO, 0];

const flexible721 = platformContracts.FlexibleERC721;
const validBody = {
  abi: flexible721.abi,
  bytecode: flexible721.bytecode,
  constructor_args: PLATFORM_ARGS,
};

/**
 * Verify capabilities: a token type is required; a capability is had when every function of it is
 * declared.
 */
describe('POST /v1/contracts/verify-capabilities', () => {
  let env: TestEnv;
  let admin: Actor;
  let member: Actor;
  before(async () => {
    env = await setupTest();
    const organization = await env.createOrganization();
    admin = await env.createUser(organization.id, 'ORG_ADMIN');
    member = await env.createUser(organization.id, 'ORG_MEMBER');
  });
  after(() => env.close());

  function verify(body: unknown, options: { token?: string; headers?: Record<string, string> } = {}) {
    return env.call('POST', '/v1/contracts/verify-capabilities', {
      token: options.token ?? admin.token,
      body,
      ...(options.headers && { headers: options.headers }),
    });
  }

  for (const name of PLATFORM_CONTRACT_NAMES) {
    it(`answers 200 with the capabilities of ${name} computed from its ABI`, async () => {
      const contract = platformContracts[name];
      const response = await verify({
        abi: contract.abi,
        bytecode: contract.bytecode,
        constructor_args: PLATFORM_ARGS,
        token_type: PLATFORM_CONTRACT_STANDARD[name],
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { capabilities: capabilitiesOf(contract.abi) });
    });
  }

  it('takes token_type as optional and nullable', async () => {
    for (const body of [validBody, { ...validBody, token_type: null }]) {
      const response = await verify(body);
      assert.equal(response.statusCode, 200, response.body);
      assert.ok(response.json().capabilities.includes('ERC721'));
    }
  });

  it('lets an ORG_MEMBER verify (reading collections is enough: nothing is stored)', async () => {
    const response = await verify(validBody, { token: member.token });
    assert.equal(response.statusCode, 200, response.body);
  });

  it('rejects a contract with neither ERC721 nor ERC1155 with 422 MISSING_TOKEN_CAPABILITY (rule 1)', async () => {
    const response = await verify({ abi: erc20Abi, bytecode: '0x6080', constructor_args: [] });
    assertError(response, 422, 'MISSING_TOKEN_CAPABILITY');
  });

  it('rejects a contract lacking one ERC-721 function with 422 MISSING_TOKEN_CAPABILITY', async () => {
    const abi = flexible721.abi.filter((item) => !(item.type === 'function' && item.name === 'getApproved'));
    assertError(await verify({ ...validBody, abi }), 422, 'MISSING_TOKEN_CAPABILITY');
  });

  it('rejects a token_type the ABI does not support with 422 MISSING_TOKEN_CAPABILITY', async () => {
    assertError(await verify({ ...validBody, token_type: 'ERC1155' }), 422, 'MISSING_TOKEN_CAPABILITY');
    const erc1155 = platformContracts.FlexibleERC1155;
    assertError(
      await verify({
        abi: erc1155.abi,
        bytecode: erc1155.bytecode,
        constructor_args: PLATFORM_ARGS,
        token_type: 'ERC721',
      }),
      422,
      'MISSING_TOKEN_CAPABILITY',
    );
  });

  it('answers 400 VALIDATION_FAILED with the faulty ABI fields', async () => {
    const abi = [
      ...flexible721.abi,
      { type: 'function', name: 'bad', inputs: [{ name: 'x', type: 'uint257' }], outputs: [] },
      { type: 'function', inputs: [] },
    ];
    assertFields(await verify({ ...validBody, abi }), [
      `/abi/${flexible721.abi.length}/inputs/0/type`,
      `/abi/${flexible721.abi.length + 1}/name`,
    ]);
  });

  it('answers 400 when an ABI entry is not an object with a type', async () => {
    assertFields(await verify({ ...validBody, abi: [...flexible721.abi, 5] }), [
      `/abi/${flexible721.abi.length}`,
    ]);
    assertFields(await verify({ ...validBody, abi: [{ name: 'f' }] }), ['/abi/0/type']);
  });

  it('answers 400 for bytecode that is not hex bytes', async () => {
    for (const bytecode of ['6080', '0xzz', '0x608', '0x', 42]) {
      assertFields(await verify({ ...validBody, bytecode }), ['/bytecode']);
    }
  });

  it('answers 400 when constructor_args do not match the constructor (count)', async () => {
    const response = await verify({ ...validBody, constructor_args: PLATFORM_ARGS.slice(0, 7) });
    assertFields(response, ['/constructor_args']);
    assert.match(response.json().error.fields[0].message, /expects 8 arguments/);
  });

  it('answers 400 when constructor_args do not match the constructor (types)', async () => {
    const args = [...PLATFORM_ARGS];
    args[4] = 'not an address';
    args[5] = '-1';
    args[7] = 2 ** 96;
    assertFields(await verify({ ...validBody, constructor_args: args }), [
      '/constructor_args/4',
      '/constructor_args/5',
      '/constructor_args/7',
    ]);
  });

  it('answers 400 for constructor arguments when the ABI has no constructor', async () => {
    const abi = flexible721.abi.filter((item) => item.type !== 'constructor');
    assertFields(await verify({ ...validBody, abi, constructor_args: ['x'] }), ['/constructor_args']);
    const response = await verify({ ...validBody, abi, constructor_args: [] });
    assert.equal(response.statusCode, 200, response.body);
  });

  it('answers 400 for missing and unknown fields and a bad token_type', async () => {
    assertFields(await verify({}), ['/abi', '/bytecode', '/constructor_args']);
    assertFields(await verify({ ...validBody, extra: 1 }), ['/extra']);
    assertError(await verify({ ...validBody, token_type: 'ERC20' }), 400, 'VALIDATION_FAILED');
  });

  it('replays the first answer for the same Idempotency-Key and refuses it with another body', async () => {
    const headers = { 'idempotency-key': `verify-${Date.now()}` };
    const first = await verify(validBody, { headers });
    const again = await verify(validBody, { headers });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(again.statusCode, 200);
    assert.equal(again.body, first.body);
    assertError(
      await verify({ ...validBody, token_type: 'ERC721' }, { headers }),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    );
  });
});
