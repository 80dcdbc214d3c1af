import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Address, toFunctionSelector } from 'viem';
import { assertError } from '../../../../../test/assertions.ts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';

const ARTIFACT = platformContracts.FlexibleERC721;
const id = (signature: string) => toFunctionSelector(signature).slice(2);

/**
 * Contract functions against a real contract: call reads through eth_call and converts the answer to
 * JSON; execute sends a transaction from the organization's wallet whose effect shows on chain.
 */
describe('contract functions on chain', () => {
  let flow: FlowTest;
  let contract: Address;
  let collectionId: string;
  let holder: Address;
  let royaltyReceiver: Address;

  before(async () => {
    flow = await setupFlowTest();
    holder = flow.chain.wallet(2).account.address;
    royaltyReceiver = flow.chain.wallet(1).account.address;
    // The organization's wallet is the contract's admin and minter, as after a PLATFORM deployment.
    contract = await flow.chain.deploy(flow.chain.wallet(0), ARTIFACT, [
      'Chain',
      'CHN',
      'https://before.test/',
      '',
      flow.wallet.address as Address,
      0n,
      royaltyReceiver,
      500n,
    ]);
    const collection = await insertCollection(flow.env.database.db, {
      organizationId: flow.organizationId,
      abi: [...ARTIFACT.abi],
      contractAddress: contract,
      networkId: flow.networkId,
      capabilities: ['ERC721'],
    });
    collectionId = collection.id;
    await flow.env.database.db
      .updateTable('collections')
      .set({ functions_enabled: true })
      .where('id', '=', collectionId)
      .execute();
  });
  after(() => flow?.close());

  const path = (signature: string, action: 'call' | 'execute') =>
    `/v1/collections/${collectionId}/functions/${id(signature)}/${action}`;

  async function call(signature: string, args: unknown[] | null) {
    const response = await flow.env.call('POST', path(signature, 'call'), {
      token: flow.member.token,
      body: { arguments: args },
    });
    return response;
  }

  async function read(signature: string, args: unknown[] | null): Promise<unknown> {
    const response = await call(signature, args);
    assert.equal(response.statusCode, 201, response.body);
    return response.json().result;
  }

  /** Enables the function, executes it and waits for its transaction to settle. */
  async function execute(signature: string, args: unknown[]) {
    const enabled = await flow.env.call(
      'PATCH',
      `/v1/collections/${collectionId}/functions/${id(signature)}`,
      {
        token: flow.admin.token,
        body: { enabled: true },
      },
    );
    assert.equal(enabled.statusCode, 200, enabled.body);
    const response = await flow.env.call('POST', path(signature, 'execute'), {
      token: flow.admin.token,
      body: { arguments: args },
    });
    assert.equal(response.statusCode, 201, response.body);
    const [transaction] = await flow.settled([response.json().transaction_id]);
    return transaction!;
  }

  it('executes mint and setBaseURI from the organization wallet; the effects read back through call', async () => {
    const mint = await execute('mint(address,uint256)', [holder.toLowerCase(), '7']);
    assert.equal(mint.state, 'COMPLETED', mint.failure_reason ?? '');
    assert.equal(mint.on_chain_status, 'SUCCESS');
    assert.equal(mint.from_address, flow.wallet.address);
    assert.equal(await read('ownerOf(uint256)', ['7']), holder);
    assert.equal(await read('balanceOf(address)', [holder]), '1');
    assert.equal(await read('tokenURI(uint256)', [7]), 'https://before.test/7');

    const setBaseUri = await execute('setBaseURI(string)', ['https://after.test/']);
    assert.equal(setBaseUri.on_chain_status, 'SUCCESS');
    assert.equal(await read('tokenURI(uint256)', ['7']), 'https://after.test/7');
    assert.equal(
      await flow.chain.publicClient.readContract({
        address: contract,
        abi: ARTIFACT.abi,
        functionName: 'baseURI',
      }),
      'https://after.test/',
    );
  });

  it('executes grantRole; hasRole reads the new role back', async () => {
    const minterRole = await read('MINTER_ROLE()', null);
    assert.match(minterRole as string, /^0x[0-9a-f]{64}$/);
    assert.equal(await read('hasRole(bytes32,address)', [minterRole, holder]), false);
    const grant = await execute('grantRole(bytes32,address)', [minterRole, holder]);
    assert.equal(grant.on_chain_status, 'SUCCESS');
    assert.equal(await read('hasRole(bytes32,address)', [minterRole, holder]), true);
    assert.equal(await read('hasRole(bytes32,address)', [minterRole, flow.wallet.address]), true);
  });

  it('converts several outputs to an object keyed by output name (royaltyInfo)', async () => {
    assert.deepEqual(await read('royaltyInfo(uint256,uint256)', ['7', '10000']), {
      receiver: royaltyReceiver,
      amount: '500',
    });
  });

  it('reads bytes4 arguments and bool answers (supportsInterface)', async () => {
    assert.equal(await read('supportsInterface(bytes4)', ['0x80ac58cd']), true);
    assert.equal(await read('supportsInterface(bytes4)', ['0x2A55205A']), true);
    assert.equal(await read('supportsInterface(bytes4)', ['0xd9b67a26']), false);
    assert.equal(await read('name()', null), 'Chain');
  });

  it('answers a revert with 400 carrying the decoded custom error', async () => {
    const response = await call('ownerOf(uint256)', ['999']);
    assertError(response, 400, 'VALIDATION_FAILED');
    assert.match(response.json().error.detail, /reverted with ERC721NonexistentToken\(999\)/);
  });

  it('answers 409 INVALID_STATE when no contract answers at the address (no code there)', async () => {
    const empty = await insertCollection(flow.env.database.db, {
      organizationId: flow.organizationId,
      abi: [...ARTIFACT.abi],
      contractAddress: flow.chain.wallet(5).account.address,
      networkId: flow.networkId,
    });
    const response = await flow.env.call(
      'POST',
      `/v1/collections/${empty.id}/functions/${id('balanceOf(address)')}/call`,
      { token: flow.member.token, body: { arguments: [holder] } },
    );
    assertError(response, 409, 'INVALID_STATE');
    assert.match(response.json().error.detail, /did not answer balanceOf\(address\)/);
  });

  it('cancels an execute the contract refuses, with the revert reason, before using a nonce', async () => {
    // renounceRole for another account reverts AccessControlBadConfirmation() at gas estimation.
    const minterRole = await read('MINTER_ROLE()', null);
    const refused = await execute('renounceRole(bytes32,address)', [minterRole, holder]);
    assert.equal(refused.state, 'CANCELLED');
    assert.equal(refused.nonce, null);
    assert.match(refused.failure_reason ?? '', /revert/i);
    assert.equal(await read('hasRole(bytes32,address)', [minterRole, holder]), true);
  });
});
