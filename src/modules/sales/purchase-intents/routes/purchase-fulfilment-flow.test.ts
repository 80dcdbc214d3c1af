import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Address, getAddress } from 'viem';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { claimClient, claimTokenFromMail, pinFromMail } from '../../../../../test/support/email-claims.ts';
import { testPayments } from '../../../../../test/support/payment-sessions.ts';
import {
  activeHolder,
  createListing,
  createPaidListing,
  randomAddress,
} from '../../../../../test/support/sales.ts';
import { findItemRow, insertItems } from '../../../../../test/support/token-requests.ts';
import {
  eventsFor,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../../../../test/support/webhook-receiver.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../../db/enums.ts';
import { confirmPurchaseIntent } from '../purchase-confirmation.service.ts';
import { deliverPurchaseIntent } from '../purchase-delivery.service.ts';

const erc721 = platformContracts.FlexibleERC721;

// CARD_PROVIDER intents here go through an in-memory provider (card payments have their own tests).
const { ports } = testPayments();

describe('purchase fulfilment by TRANSFER on a real chain', () => {
  let flow: FlowTest;
  let orgWallet: Address;
  let receiver: WebhookReceiver;
  let webhookId: string;
  before(async () => {
    flow = await setupFlowTest({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { ports });
    orgWallet = getAddress(flow.wallet.address);
    receiver = await startWebhookReceiver();
    const subscribed = await flow.env.call('POST', '/v1/webhooks', {
      token: flow.admin.token,
      body: {
        url: receiver.url,
        events: WEBHOOK_EVENT_TYPES.filter(
          (t) => t.startsWith('listing.') || t.startsWith('purchase_intent.'),
        ),
      },
    });
    assert.equal(subscribed.statusCode, 201, subscribed.body);
    webhookId = subscribed.json().id;
    receiver.secrets = [subscribed.json().secret];
  });
  after(async () => {
    await flow?.close();
    await receiver?.close();
  });
  const db = () => flow.env.database.db;
  /** The sales events written for the endpoint about `resourceId`, in the order they happened. */
  const events = (resourceId: string) => eventsFor(db(), webhookId, resourceId);

  /** Locks the token request of `itemId` in `table` in a transaction of its own until released. */
  const holdRowLock = (table: 'mint_requests' | 'transfer_requests', itemId: string) => {
    let locked!: () => void;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done = db()
      .transaction()
      .execute(async (tx) => {
        const rows = await tx
          .selectFrom(table)
          .select('id')
          .where('item_id', '=', itemId)
          .forUpdate()
          .execute();
        assert.equal(rows.length, 1);
        locked();
        await released;
      });
    return {
      held: Promise.race([held, done]),
      release: async () => {
        release();
        await done;
      },
    };
  };

  const intentOf = async (id: string) =>
    (await flow.env.call('GET', `/v1/purchase-intents/${id}`, { token: flow.admin.token })).json();

  it('mints unminted items and transfers held ones to the buyer once confirmed; COMPLETED when the transactions complete', async () => {
    const { address, collection } = await flow.deployCollection('ERC721');
    const [unminted, held] = await insertItems(db(), 2, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    const minted = await flow.env.call('POST', '/v1/mint-requests', {
      token: flow.admin.token,
      body: { item_id: held!.id, to_address: orgWallet },
    });
    assert.equal(minted.statusCode, 201, minted.body);
    await flow.settled([minted.json().mint_requests[0].transaction_id]);
    await flow.until(
      async () => ((await findItemRow(db(), held!.id)).held_supply === '1' ? true : undefined),
      'the mint to the wallet to settle',
    );
    const listing = await createPaidListing(flow.env, flow.admin.token, {
      collection_id: collection.id,
      max_quantity_per_tx: 2,
    });
    assert.equal(listing.quantity_listed, 2);
    const buyer = randomAddress();
    const created = await flow.env.call('POST', '/v1/public/purchase-intents', {
      body: { listing_id: listing.id, quantity: 2, provider: 'CARD_PROVIDER', buyer: { eth_address: buyer } },
      ip: freshIp(),
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as string;
    assert.equal(created.json().fulfillment_method, 'TRANSFER');

    // Confirmed twice (a provider event seen again), delivered by the job, and once more by hand:
    // one delivery.
    for (let i = 0; i < 2; i++)
      await db()
        .transaction()
        .execute((tx) => confirmPurchaseIntent(tx, flow.env.ctx, id));
    await db()
      .transaction()
      .execute((tx) => deliverPurchaseIntent(tx, flow.env.ctx, id));
    // The mint's settlement job waits behind a lock on its record, so the transfer settles first
    // while the mint transaction is already COMPLETED on chain: the intent must wait for both.
    const mintLock = holdRowLock('mint_requests', unminted!.id);
    await mintLock.held;
    const started = await flow.until(async () => {
      const intent = await intentOf(id);
      return intent.transaction_ids.length > 0 ? intent : undefined;
    }, 'the delivery to start');
    assert.equal(started.status, 'CONFIRMED');
    assert.deepEqual(started.item_ids, [unminted!.id, held!.id], 'lowest token id first');
    await flow.settled(started.transaction_ids);
    await flow
      .until(
        async () => {
          const transfer = await db()
            .selectFrom('transfer_requests')
            .select('state')
            .where('item_id', '=', held!.id)
            .executeTakeFirst();
          return transfer?.state === 'COMPLETED' ? true : undefined;
        },
        'the transfer to settle',
        15000,
      )
      .catch(async (e) => {
        const { sql } = await import('kysely');
        console.log(
          'DIAG jobs',
          JSON.stringify(
            (
              await sql`select task_identifier, payload, attempts, last_error, locked_at, run_at from graphile_worker.jobs`.execute(
                db(),
              )
            ).rows,
            null,
            1,
          ),
        );
        console.log(
          'DIAG activity',
          JSON.stringify(
            (
              await sql`select state, wait_event_type, wait_event, left(query, 300) q from pg_stat_activity where datname = current_database()`.execute(
                db(),
              )
            ).rows,
            null,
            1,
          ),
        );
        console.log(
          'DIAG transfers',
          JSON.stringify(await db().selectFrom('transfer_requests').selectAll().execute()),
        );
        console.log(
          'DIAG mints',
          JSON.stringify(await db().selectFrom('mint_requests').selectAll().execute()),
        );
        throw e;
      });
    assert.equal((await findItemRow(db(), unminted!.id)).token_status, 'MINTING');
    assert.equal((await intentOf(id)).fulfillment_status, 'ASSIGNED', 'the mint has not settled yet');
    await mintLock.release();
    const done = await flow.until(async () => {
      const intent = await intentOf(id);
      return intent.fulfillment_status !== 'ASSIGNED' ? intent : undefined;
    }, 'the fulfilment to settle');
    assert.equal(done.fulfillment_status, 'COMPLETED', JSON.stringify(done));
    assert.equal(done.fulfillment_error, null);
    for (const item of [unminted!, held!]) {
      const owner = await flow.chain.publicClient.readContract({
        address,
        abi: erc721.abi,
        functionName: 'ownerOf',
        args: [BigInt(item.token_id!)],
      });
      assert.equal(owner, buyer);
      const row = await findItemRow(db(), item.id);
      assert.deepEqual([row.token_status, row.held_supply], ['MINTED', '0']);
      assert.equal(await activeHolder(flow.env, item.id), undefined, 'the item is free of every hold');
    }
    const mints = await db()
      .selectFrom('mint_requests')
      .select('id')
      .where('item_id', '=', unminted!.id)
      .execute();
    assert.equal(mints.length, 1, 'minted once');
    const listingAfter = await flow.env.call('GET', `/v1/listings/${listing.id}`, {
      token: flow.admin.token,
    });
    assert.equal(listingAfter.json().status, 'COMPLETE');
    // Confirmed twice and delivered by two transactions: each event once, fulfilled at the last.
    const sent = await events(id);
    assert.deepEqual(
      sent.map((e) => e.type),
      ['purchase_intent.created', 'purchase_intent.confirmed', 'purchase_intent.fulfilled'],
    );
    assert.deepEqual(sent[2]!.data, done);
    assert.deepEqual(
      (await events(listing.id)).map((e) => e.type),
      ['listing.created', 'listing.completed'],
    );
  });

  it('an EMAIL_CLAIM sale end to end: intent → the worker mails the claim → the buyer redeems it → the token is minted', async () => {
    const { address, collection } = await flow.deployCollection('ERC721');
    const [item] = await insertItems(db(), 1, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    const listing = await createListing(flow.env, flow.admin.token, { collection_id: collection.id });
    const email = 'sale-buyer@example.com';
    const created = await flow.env.call('POST', '/v1/public/purchase-intents', {
      body: { listing_id: listing.id, quantity: 1, provider: 'EMAIL_CLAIM', buyer: { email } },
      ip: freshIp(),
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().status, 'CONFIRMED');
    const done = await flow.until(async () => {
      const intent = await intentOf(created.json().id);
      return intent.fulfillment_status === 'COMPLETED' ? intent : undefined;
    }, 'the worker to deliver the sale');
    assert.equal(done.item_claim_ids.length, 1);
    const token = await claimTokenFromMail(flow.env, email);
    const claims = claimClient(flow.env, freshIp);
    assert.equal((await claims.verify(token)).statusCode, 200);
    const recipient = randomAddress();
    const redeemed = await claims.redeem(token, {
      address: recipient,
      pin: await pinFromMail(flow.env, email),
    });
    assert.equal(redeemed.statusCode, 200, redeemed.body);
    await flow.settled([redeemed.json().transaction_id]);
    const owner = await flow.chain.publicClient.readContract({
      address,
      abi: erc721.abi,
      functionName: 'ownerOf',
      args: [BigInt(item!.token_id!)],
    });
    assert.equal(owner, recipient);
  });

  it('is EXCEPTION with the reason when the contract cannot deliver', async () => {
    const { collection } = await flow.deployCollection('ERC721', { capabilities: ['ERC721'] });
    await insertItems(db(), 1, {
      collectionId: collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    const listing = await createPaidListing(flow.env, flow.admin.token, { collection_id: collection.id });
    const created = await flow.env.call('POST', '/v1/public/purchase-intents', {
      body: {
        listing_id: listing.id,
        quantity: 1,
        provider: 'CARD_PROVIDER',
        buyer: { eth_address: randomAddress() },
      },
      ip: freshIp(),
    });
    const id = created.json().id as string;
    await db()
      .transaction()
      .execute((tx) => confirmPurchaseIntent(tx, flow.env.ctx, id));
    const intent = await flow.until(async () => {
      const current = await intentOf(id);
      return current.fulfillment_status === 'EXCEPTION' ? current : undefined;
    }, 'the delivery job to give up');
    assert.match(intent.fulfillment_error, /MINT|capabilit/i);
  });
});
