import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Abi, zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { claimClient, claimTokenFromMail, pinFromMail } from '../../../../../test/support/email-claims.ts';
import { insertItem, insertItems } from '../../../../../test/support/token-requests.ts';
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../../../../test/support/webhook-receiver.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import { capabilitiesOf } from '../../../../chain/capabilities.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../../db/enums.ts';
import { expireDueClaims } from '../../../sales/email-claims/email-claims.service.ts';

const RECIPIENT = privateKeyToAccount(`0x${'33'.repeat(32)}`).address;

/**
 * Every event type that exists today, produced by its real flow (the API, the relayer and the
 * settlement jobs on an anvil chain) and received by an endpoint on loopback that verifies each
 * signature with the Standard Webhooks reference implementation.
 */
describe('webhook events from real flows on the dev chain', () => {
  let flow: FlowTest;
  let receiver: WebhookReceiver;
  before(async () => {
    flow = await setupFlowTest({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    receiver = await startWebhookReceiver();
    const created = await flow.env.call('POST', '/v1/webhooks', {
      token: flow.admin.token,
      body: { url: receiver.url, events: WEBHOOK_EVENT_TYPES.filter((t) => t !== 'webhook.test') },
    });
    assert.equal(created.statusCode, 201, created.body);
    receiver.secrets = [created.json().secret];
  });
  after(async () => {
    await flow?.close();
    await receiver?.close();
  });

  const call = (method: 'GET' | 'POST', url: string, body?: unknown) =>
    flow.env.call(method, url, { token: flow.admin.token, ...(body !== undefined && { body }) });

  /** The event of `type` about the resource `id`, once received (and signed by our secret). */
  const event = async (type: string, id: string): Promise<ReceivedWebhook> => {
    const got = await flow.until(
      async () => receiver.received.find((r) => r.payload.type === type && r.payload.data.id === id),
      `${type} about ${id}`,
    );
    assert.deepEqual(got.verifiedWith, receiver.secrets, `${type} verifies with standardwebhooks`);
    return got;
  };
  const indexOf = (got: ReceivedWebhook) => receiver.received.indexOf(got);

  it('collection.deployed and transaction.completed for a PLATFORM deployment; the data is the API resource', async () => {
    const created = await call('POST', '/v1/collections', {
      name: 'Webhook drop',
      deployment_request: {
        type: 'PLATFORM',
        network_id: flow.networkId,
        platform: { symbol: 'WHK', variant: 'FlexibleERC721' },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { id, deployment } = created.json();
    const deployed = await event('collection.deployed', id);
    const api = (await call('GET', `/v1/collections/${id}`)).json();
    assert.deepEqual(deployed.payload.data, api);
    assert.equal((deployed.payload.data.deployment as { status: string }).status, 'SUCCESS');
    const completed = await event('transaction.completed', deployment.transaction_id);
    assert.equal(completed.payload.data.state, 'COMPLETED');
    assert.equal(completed.payload.data.on_chain_status, 'SUCCESS');
    assert.deepEqual(
      completed.payload.data,
      (await call('GET', `/v1/transactions/${deployment.transaction_id}`)).json(),
    );
  });

  it('collection.deployment_failed and transaction.failed when a CUSTOM constructor reverts', async () => {
    const artifact = platformContracts.FlexibleERC721;
    const created = await call('POST', '/v1/collections', { name: 'Reverting' });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as string;
    const requested = await call('POST', `/v1/collections/${id}/deployment-request`, {
      network_id: flow.networkId,
      type: 'CUSTOM',
      custom: {
        abi: artifact.abi,
        bytecode: artifact.bytecode,
        // admin = 0 reverts the constructor with InvalidAdmin().
        constructor_args: [
          'Custom',
          'CST',
          'https://c.test/',
          'https://c.test/c',
          zeroAddress,
          '0',
          zeroAddress,
          0,
        ],
      },
    });
    assert.equal(requested.statusCode, 200, requested.body);
    const failed = await event('collection.deployment_failed', id);
    assert.equal((failed.payload.data.deployment as { status: string }).status, 'FAILED');
    const transaction = await event('transaction.failed', requested.json().transaction_id);
    assert.ok(['CANCELLED', 'COMPLETED'].includes(String(transaction.payload.data.state)));
  });

  it('item.minted and mint_request.completed, then item.transferred and transfer_request.completed, in order', async () => {
    const { collection } = await flow.deployCollection('ERC721');
    const [item] = await insertItems(flow.env.database.db, 1, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    const minted = await call('POST', '/v1/mint-requests', {
      item_id: item!.id,
      to_address: flow.wallet.address,
    });
    assert.equal(minted.statusCode, 201, minted.body);
    const mintRequest = minted.json().mint_requests[0];
    const mintCompleted = await event('mint_request.completed', mintRequest.id);
    assert.deepEqual(
      mintCompleted.payload.data,
      (await call('GET', `/v1/mint-requests/${mintRequest.id}`)).json(),
    );
    const itemMinted = await event('item.minted', item!.id);
    assert.equal(itemMinted.payload.data.token_status, 'MINTED');
    await event('transaction.completed', mintRequest.transaction_id);

    const transferred = await call('POST', '/v1/transfer-requests', {
      item_id: item!.id,
      to_address: RECIPIENT,
    });
    assert.equal(transferred.statusCode, 201, transferred.body);
    const transferRequest = transferred.json().transfer_requests[0];
    const transferCompleted = await event('transfer_request.completed', transferRequest.id);
    assert.equal(transferCompleted.payload.data.state, 'COMPLETED');
    assert.equal(transferCompleted.payload.data.to_address, RECIPIENT);
    const itemTransferred = await event('item.transferred', item!.id);
    assert.ok(indexOf(itemMinted) < indexOf(itemTransferred), 'the same resource in order of occurrence');
    const ids = receiver.received.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, 'one webhook-id per event');
  });

  it('mint_request.failed and transfer_request.failed when the chain refuses them', async () => {
    const { address, collection } = await flow.deployCollection('ERC721');
    const db = flow.env.database.db;
    // Token 1 minted through a first collection...
    const [first] = await insertItems(db, 1, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    const ok = await call('POST', '/v1/mint-requests', { item_id: first!.id, to_address: RECIPIENT });
    await event('mint_request.completed', ok.json().mint_requests[0].id);
    // ...then again through a second collection row on the same contract: the contract refuses.
    const twin = await insertCollection(db, {
      organizationId: flow.organizationId,
      contractAddress: address,
      abi: [...platformContracts.FlexibleERC721.abi],
      capabilities: capabilitiesOf(platformContracts.FlexibleERC721.abi as Abi),
      tokenType: 'ERC721',
      strategy: 'MANUAL',
    });
    const [again] = await insertItems(db, 1, {
      collectionId: twin.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    const refused = await call('POST', '/v1/mint-requests', { item_id: again!.id, to_address: RECIPIENT });
    assert.equal(refused.statusCode, 201, refused.body);
    const mintFailed = await event('mint_request.failed', refused.json().mint_requests[0].id);
    assert.equal(mintFailed.payload.data.state, 'FAILED');
    await event('transaction.failed', refused.json().mint_requests[0].transaction_id);

    // An item the service believes its wallet holds, never minted on chain: the transfer reverts.
    const ghost = await insertItem(db, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      tokenId: 77n,
      tokenStatus: 'MINTED',
      mintedSupply: 1n,
      heldSupply: 1n,
    });
    const transfer = await call('POST', '/v1/transfer-requests', {
      item_id: ghost.id,
      to_address: RECIPIENT,
    });
    assert.equal(transfer.statusCode, 201, transfer.body);
    const transferFailed = await event('transfer_request.failed', transfer.json().transfer_requests[0].id);
    assert.equal(transferFailed.payload.data.state, 'FAILED');
  });

  it('email_claim.created, email_claim.claimed (with the delivery events) and email_claim.expired', async () => {
    const { collection } = await flow.deployCollection('ERC721');
    const items = await insertItems(flow.env.database.db, 2, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    const email = 'webhook-claim@example.com';
    const created = await call('POST', '/v1/email-claims', { email, item_id: items[0]!.id, quantity: 1 });
    assert.equal(created.statusCode, 201, created.body);
    const claimId = created.json().id as string;
    const claimCreated = await event('email_claim.created', claimId);
    assert.deepEqual(claimCreated.payload.data, created.json());

    const client = claimClient(flow.env, freshIp);
    const token = await claimTokenFromMail(flow.env, email);
    assert.equal((await client.verify(token)).statusCode, 200);
    const pin = await pinFromMail(flow.env, email);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const redeemed = await client.redeem(token, { address: recipient, pin });
    assert.equal(redeemed.statusCode, 200, redeemed.body);
    const claimed = await event('email_claim.claimed', claimId);
    assert.equal(claimed.payload.data.claimed, true);
    assert.ok(indexOf(claimCreated) < indexOf(claimed));
    await event('item.minted', items[0]!.id);
    await event('transaction.completed', redeemed.json().transaction_id);

    const expiring = await call('POST', '/v1/email-claims', {
      email: 'webhook-expiry@example.com',
      item_id: items[1]!.id,
      quantity: 1,
    });
    assert.equal(expiring.statusCode, 201, expiring.body);
    await flow.env.database.db
      .updateTable('email_claims')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', expiring.json().id)
      .execute();
    assert.equal(await expireDueClaims(flow.env.database.db, flow.env.ctx), 1);
    const expired = await event('email_claim.expired', expiring.json().id);
    assert.equal(expired.payload.data.active, false);
  });
});
