import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Abi, decodeDeployData, getAddress, type Hex, zeroAddress } from 'viem';
import { MockERC20Abi } from '../../../../../contracts/artifacts/abis.ts';
import mockErc20 from '../../../../../contracts/artifacts/test/MockERC20.json' with { type: 'json' };
import { assertError } from '../../../../../test/assertions.ts';
import { completedTransactionColumns, insertTransaction } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { capabilitiesOf, capabilityDefinition } from '../../../../chain/capabilities.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { settleTransaction } from '../../../platform/transactions/transaction-settled.task.ts';
import {
  badChecksum,
  collectionCalls,
  customRequest,
  DISABLED_NETWORK,
  flexible721,
  NETWORK,
  OTHER_NETWORK,
  PLATFORM_ARGS,
  platformRequest,
  RECEIVER,
  seedCollections,
} from './collections.test-setup.ts';

/**
 * Deploying a collection, without a chain: the deployment request (PLATFORM, CUSTOM, EXTERNAL),
 * its settlement by the DEPLOY handler and the public capabilities it leaves.
 */
describe('collections', () => {
  let env: TestEnv;
  let orgId: string;
  let admin: Actor;
  let member: Actor;

  before(async () => {
    env = await setupTest();
    ({ orgId, admin, member } = await seedCollections(env));
  });
  after(() => env.close());

  const { created, requestDeployment, get, row, transactionCount, transaction, markDeployed } =
    collectionCalls(() => ({ env, admin }));

  describe('deployment requests', () => {
    it('answers 404 to GET deployment-request before any request, then PENDING with the transaction', async () => {
      const collection = await created();
      const path = `/v1/collections/${collection.id}/deployment-request`;
      assertError(await env.call('GET', path, { token: member.token }), 404, 'NOT_FOUND');
      const response = await requestDeployment(
        collection.id,
        platformRequest({ token_id_assignment_strategy: null }),
      );
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.equal(body.status, 'PENDING');
      assert.equal((await transaction(body.transaction_id)).type, 'DEPLOY');
      const status = await env.call('GET', path, { token: member.token });
      assert.equal(status.statusCode, 200, status.body);
      assert.deepEqual(status.json(), {
        status: 'PENDING',
        transaction_id: body.transaction_id,
        failure_reason: null,
      });
      const deployment = (await get(collection.id)).deployment;
      assert.equal(deployment.token_id_assignment_strategy, 'AUTOMATIC');
      assert.equal(deployment.transaction_id, body.transaction_id);
    });

    it('takes one deployment at a time: 409 INVALID_STATE while PENDING or after SUCCESS, a new one after FAILED', async () => {
      const collection = await created({ deployment_request: platformRequest() });
      const first = collection.deployment.transaction_id;
      assertError(await requestDeployment(collection.id, platformRequest()), 409, 'INVALID_STATE');
      await env.database.db
        .updateTable('collections')
        .set({ deployment_status: 'FAILED', deployment_failure_reason: 'reverted on chain' })
        .where('id', '=', collection.id)
        .execute();
      const again = await requestDeployment(
        collection.id,
        platformRequest({}, { variant: 'FlexibleERC1155', symbol: 'TWO' }),
      );
      assert.equal(again.statusCode, 200, again.body);
      assert.notEqual(again.json().transaction_id, first);
      const deployment = (await get(collection.id)).deployment;
      assert.equal(deployment.token_type, 'ERC1155');
      assert.equal(deployment.symbol, 'TWO');
      assert.equal(deployment.failure_reason, null);
      assert.equal(deployment.status, 'PENDING');
      await markDeployed(collection.id);
      assertError(await requestDeployment(collection.id, platformRequest()), 409, 'INVALID_STATE');
    });

    it('wants exactly the object named by type (400 on each wrong one)', async () => {
      const collection = await created();
      const custom = {
        abi: flexible721.abi,
        bytecode: flexible721.bytecode,
        constructor_args: PLATFORM_ARGS,
      };
      for (const [body, paths] of [
        [{ type: 'PLATFORM', network_id: NETWORK }, ['/platform']],
        [{ type: 'PLATFORM', network_id: NETWORK, platform: null }, ['/platform']],
        [{ ...platformRequest(), custom }, ['/custom']],
        [
          { type: 'CUSTOM', network_id: NETWORK, platform: platformRequest().platform },
          ['/platform', '/custom'],
        ],
        [{ type: 'EXTERNAL', network_id: NETWORK, custom }, ['/custom', '/external']],
      ] as const)
        assertError(await requestDeployment(collection.id, body), 400, 'VALIDATION_FAILED', {
          fields: [...paths],
        });
      for (const body of [
        { network_id: NETWORK, platform: platformRequest().platform },
        { ...platformRequest(), network_id: 'one' },
        platformRequest({}, { variant: 'ERC20' }),
        platformRequest({}, { symbol: '' }),
        platformRequest({}, { max_supply: '-1' }),
        platformRequest({ extra: true }),
      ])
        assertError(await requestDeployment(collection.id, body), 400, 'VALIDATION_FAILED');
      assert.equal((await get(collection.id)).deployment, null);
    });

    it("needs a registered, enabled network among the organization's network_ids (400 on /network_id)", async () => {
      const collection = await created();
      const before = await transactionCount();
      for (const networkId of [OTHER_NETWORK, DISABLED_NETWORK, 424242])
        assertError(
          await requestDeployment(collection.id, platformRequest({ network_id: networkId })),
          400,
          'VALIDATION_FAILED',
          { fields: ['/network_id'] },
        );
      assert.equal(await transactionCount(), before);
      assert.equal((await get(collection.id)).deployment, null);
    });

    it('checks max_supply and owner of a platform deployment, and stores the owner', async () => {
      const collection = await created();
      for (const [platform, path] of [
        [{ max_supply: (2n ** 256n).toString() }, '/platform/max_supply'],
        [{ owner: badChecksum(RECEIVER) }, '/platform/owner'],
        [{ owner: zeroAddress }, '/platform/owner'],
      ] as const)
        assertError(
          await requestDeployment(collection.id, platformRequest({}, platform)),
          400,
          'VALIDATION_FAILED',
          { fields: [path] },
        );
      const response = await requestDeployment(
        collection.id,
        platformRequest({}, { owner: RECEIVER.toLowerCase(), max_supply: (2n ** 256n - 1n).toString() }),
      );
      assert.equal(response.statusCode, 200, response.body);
      const stored = await row(collection.id);
      assert.equal(stored.owner_address, RECEIVER);
      assert.equal(stored.max_supply, (2n ** 256n - 1n).toString());
    });

    it('deploys a CUSTOM contract as given: the encoded constructor, its ABI and token type', async () => {
      const collection = await created();
      const response = await requestDeployment(
        collection.id,
        customRequest({
          abi: flexible721.abi,
          bytecode: flexible721.bytecode,
          constructor_args: PLATFORM_ARGS,
        }),
      );
      assert.equal(response.statusCode, 200, response.body);
      const tx = await transaction(response.json().transaction_id);
      const { args } = decodeDeployData({
        abi: flexible721.abi,
        bytecode: flexible721.bytecode,
        data: tx.data as Hex,
      });
      assert.deepEqual(args, [
        'Custom',
        'CST',
        'https://c.test/',
        'https://c.test/c',
        RECEIVER,
        0n,
        zeroAddress,
        0n,
      ]);
      const deployment = (await get(collection.id)).deployment;
      assert.equal(deployment.type, 'CUSTOM');
      assert.equal(deployment.token_type, 'ERC721');
      assert.equal(deployment.symbol, '', 'read from the contract once deployed');
      const stored = await row(collection.id);
      assert.equal((stored.abi as Abi).length, flexible721.abi.length);
      assert.equal(stored.platform_variant, null);
    });

    it('refuses CUSTOM contracts without the token standard asked for (422 MISSING_TOKEN_CAPABILITY)', async () => {
      const collection = await created();
      assertError(
        await requestDeployment(
          collection.id,
          customRequest({ abi: MockERC20Abi, bytecode: mockErc20.bytecode, constructor_args: ['T', 'T', 6] }),
        ),
        422,
        'MISSING_TOKEN_CAPABILITY',
      );
      assertError(
        await requestDeployment(
          collection.id,
          customRequest({
            abi: flexible721.abi,
            bytecode: flexible721.bytecode,
            constructor_args: PLATFORM_ARGS,
            token_type: 'ERC1155',
          }),
        ),
        422,
        'MISSING_TOKEN_CAPABILITY',
      );
      assert.equal((await get(collection.id)).deployment, null);
    });

    it('wants the token_type of a CUSTOM contract that is both ERC721 and ERC1155', async () => {
      const both = [
        ...(flexible721.abi as Abi),
        ...capabilityDefinition('ERC1155').abi.filter(
          (f) => f.name !== 'setApprovalForAll' && f.name !== 'isApprovedForAll',
        ),
      ];
      const custom = { abi: both, bytecode: flexible721.bytecode, constructor_args: PLATFORM_ARGS };
      const collection = await created();
      assertError(await requestDeployment(collection.id, customRequest(custom)), 400, 'VALIDATION_FAILED', {
        fields: ['/custom/token_type'],
      });
      const response = await requestDeployment(
        collection.id,
        customRequest({ ...custom, token_type: 'ERC1155' }),
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.equal((await get(collection.id)).deployment.token_type, 'ERC1155');
    });

    it('gives EXTERNAL token ids to ERC721 contracts with ADMIN_MINT_MULTIPLE_NO_ID only (400 / 422 MISSING_MINT_CAPABILITY)', async () => {
      const collection = await created();
      assertError(
        await requestDeployment(
          collection.id,
          platformRequest({ token_id_assignment_strategy: 'EXTERNAL' }, { variant: 'FrozenERC1155' }),
        ),
        400,
        'VALIDATION_FAILED',
        { fields: ['/token_id_assignment_strategy'] },
      );
      const noIdless = (flexible721.abi as Abi).filter(
        (item) => !(item.type === 'function' && item.name === 'mintBatchNoId'),
      );
      assertError(
        await requestDeployment(
          collection.id,
          customRequest(
            { abi: noIdless, bytecode: flexible721.bytecode, constructor_args: PLATFORM_ARGS },
            { token_id_assignment_strategy: 'EXTERNAL' },
          ),
        ),
        422,
        'MISSING_MINT_CAPABILITY',
      );
      assert.equal((await get(collection.id)).deployment, null);
      const response = await requestDeployment(
        collection.id,
        platformRequest({ token_id_assignment_strategy: 'EXTERNAL' }),
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.equal((await get(collection.id)).deployment.token_id_assignment_strategy, 'EXTERNAL');
    });

    it('answers 502 UPSTREAM_FAILED when the node does not answer for an EXTERNAL contract, changing nothing', async () => {
      const collection = await created();
      const response = await requestDeployment(collection.id, {
        type: 'EXTERNAL',
        network_id: NETWORK,
        external: { address: RECEIVER, token_type: 'ERC721' },
      });
      assertError(response, 502, 'UPSTREAM_FAILED');
      assert.equal((await get(collection.id)).deployment, null);
    });

    it('answers 400 to a mis-checksummed EXTERNAL address or an invalid ABI, before reading the chain', async () => {
      const collection = await created();
      const external = { address: badChecksum(RECEIVER), token_type: 'ERC721' };
      assertError(
        await requestDeployment(collection.id, { type: 'EXTERNAL', network_id: NETWORK, external }),
        400,
        'VALIDATION_FAILED',
        { fields: ['/external/address'] },
      );
      assertError(
        await requestDeployment(collection.id, {
          type: 'EXTERNAL',
          network_id: NETWORK,
          external: {
            address: RECEIVER,
            token_type: 'ERC721',
            abi: [{ type: 'function', name: 'x', inputs: [{ type: 'uint7' }] }],
          },
        }),
        400,
        'VALIDATION_FAILED',
      );
    });
  });

  describe('deployment settlement (the DEPLOY handler)', () => {
    let nonce = 1000;
    const settle = async (transactionId: string) => {
      await settleTransaction(env.database.db, env.ctx, transactionId);
    };

    it('moves a PENDING deployment to SUCCESS with the checksummed address and the capabilities of its ABI, once', async () => {
      const collection = await created({ deployment_request: platformRequest() });
      const txId = collection.deployment.transaction_id;
      const address = `0x${'cd'.repeat(20)}`;
      await env.database.db
        .updateTable('transactions')
        .set({ ...completedTransactionColumns(nonce++, 'SUCCESS'), contract_address: address })
        .where('id', '=', txId)
        .execute();
      await settle(txId);
      const deployment = (await get(collection.id)).deployment;
      assert.equal(deployment.status, 'SUCCESS');
      assert.equal(deployment.address, getAddress(address));
      assert.deepEqual(deployment.capabilities, capabilitiesOf(flexible721.abi as Abi));
      assert.equal(deployment.symbol, 'FIX');
      const capabilities = await env.call('GET', `/v1/public/collections/${collection.id}/capabilities`);
      assert.equal(capabilities.statusCode, 200, capabilities.body);
      assert.deepEqual(capabilities.json(), { capabilities: deployment.capabilities });

      // A retried job, even with another outcome, changes nothing any more.
      await env.database.db
        .updateTable('transactions')
        .set({ on_chain_status: 'FAILURE' })
        .where('id', '=', txId)
        .execute();
      await settle(txId);
      assert.equal((await get(collection.id)).deployment.status, 'SUCCESS');
    });

    it('moves it to FAILED with the reason when the transaction reverted or was cancelled', async () => {
      const reverted = await created({ deployment_request: platformRequest() });
      const cancelled = await created({ deployment_request: platformRequest() });
      await env.database.db
        .updateTable('transactions')
        .set(completedTransactionColumns(nonce++, 'FAILURE'))
        .where('id', '=', reverted.deployment.transaction_id)
        .execute();
      await env.database.db
        .updateTable('transactions')
        .set({ state: 'CANCELLED', failure_reason: 'reverted: InvalidAdmin()', completed_at: new Date() })
        .where('id', '=', cancelled.deployment.transaction_id)
        .execute();
      await settle(reverted.deployment.transaction_id);
      await settle(cancelled.deployment.transaction_id);
      for (const [collection, reason] of [
        [reverted, 'reverted on chain'],
        [cancelled, 'reverted: InvalidAdmin()'],
      ] as const) {
        const status = await env.call('GET', `/v1/collections/${collection.id}/deployment-request`, {
          token: admin.token,
        });
        assert.deepEqual(status.json(), {
          status: 'FAILED',
          transaction_id: collection.deployment.transaction_id,
          failure_reason: reason,
        });
        const deployment = (await get(collection.id)).deployment;
        assert.equal(deployment.address, null);
        assert.deepEqual(deployment.capabilities, []);
      }
    });

    it('ignores DEPLOY transactions that are no collection deployment', async () => {
      const row = await insertTransaction(env.database.db, orgId, {
        network_id: NETWORK,
        type: 'DEPLOY',
        to_address: null,
        ...completedTransactionColumns(nonce++, 'SUCCESS'),
        contract_address: `0x${'ef'.repeat(20)}`,
      });
      await settle(row.id);
      const stillPending = await created({ deployment_request: platformRequest() });
      assert.equal((await get(stillPending.id)).deployment.status, 'PENDING');
    });
  });

  describe('GET /v1/public/collections/{collection_id}/capabilities', () => {
    it('answers without credentials: [] until deployed, 404 for unknown ids', async () => {
      const collection = await created({ deployment_request: platformRequest() });
      const response = await env.call('GET', `/v1/public/collections/${collection.id}/capabilities`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { capabilities: [] });
      assertError(await env.call('GET', `/v1/public/collections/${uuidv7()}/capabilities`), 404, 'NOT_FOUND');
      assertError(
        await env.call('GET', '/v1/public/collections/nope/capabilities'),
        400,
        'VALIDATION_FAILED',
      );
    });
  });
});
