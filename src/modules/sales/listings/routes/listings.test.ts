import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { assertError } from '../../../../../test/assertions.ts';
import {
  completedTransactionColumns,
  insertCollection,
  insertTransaction,
} from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { type insertItem, insertItems } from '../../../../../test/support/token-requests.ts';
import type { CollectionRow } from '../../../../db/schema.ts';
import { settleTransaction } from '../../../platform/transactions/transaction-settled.task.ts';

const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

describe('listings', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  let member: Actor;
  let stranger: Actor;
  let seq = 1000n;
  const db = () => env.database.db;

  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    ({ organizationId, admin, member, stranger } = await env.createTenant());
  });
  after(() => env.close());

  const collection = (fields: Partial<Parameters<typeof insertCollection>[1]> = {}) =>
    insertCollection(db(), { organizationId, deployedOn: 'FlexibleERC721', ...fields });
  const voucherCollection = () => collection({ deployedOn: 'SignatureERC721' });
  const items = (c: CollectionRow, count: number, fields: Partial<Parameters<typeof insertItem>[1]> = {}) => {
    const first = seq;
    seq += BigInt(count);
    return insertItems(db(), count, {
      collectionId: c.id,
      organizationId: c.organization_id,
      firstTokenId: first,
      ...fields,
    });
  };
  const policy = { type: 'FCFS' };
  const base = {
    currency: 'USD',
    price: '0',
    max_quantity_per_tx: 1,
    payment_providers: ['EMAIL_CLAIM'],
    policy,
  };
  const create = (body: Record<string, unknown>, token = admin.token) =>
    env.call('POST', '/v1/listings', { token, body: { ...base, ...body } });
  const created = async (body: Record<string, unknown>) => {
    const response = await create(body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  const reservationHolder = async (itemId: string) =>
    (await db()
      .selectFrom('item_reservations')
      .select(['holder_id', 'kind', 'quantity'])
      .where('item_id', '=', itemId)
      .where('released_at', 'is', null)
      .executeTakeFirst()) ?? null;

  describe('create', () => {
    it('lists one item (item-level) ACTIVE, with its policy defaults, and reserves it for the listing', async () => {
      const c = await collection();
      const [item] = await items(c, 1);
      const listing = await created({ item_id: item!.id });
      assert.equal(listing.status, 'ACTIVE');
      assert.equal(listing.item_id, item!.id);
      assert.equal(listing.collection_id, c.id);
      assert.equal(listing.quantity_listed, 1);
      assert.equal(listing.quantity_remaining, 1);
      assert.equal(listing.sale_type, 'DEFAULT');
      assert.deepEqual(listing.settlement_currency, { EMAIL_CLAIM: 'USD' });
      assert.deepEqual(listing.policy, {
        type: 'FCFS',
        max_per_user: null,
        payment_session_duration: { timeout_seconds: 900, provider_override: {} },
        email_claim_duration: 604800,
        item_assignment_strategy: 'AUTOMATIC',
        tx_payer: 'SELLER',
        email_addresses: null,
        eth_addresses: null,
      });
      assert.deepEqual(await reservationHolder(item!.id), {
        holder_id: listing.id,
        kind: 'LISTING',
        quantity: '1',
      });
      const status = await env.call('GET', `/v1/items/${item!.id}/status`, { token: admin.token });
      assert.equal(status.statusCode, 200, status.body);
      assert.deepEqual(status.json().listing_ids, [listing.id]);
    });

    it('takes the eligible items of a collection, lowest token id first, passing over unlocked, reserved and sold ones', async () => {
      const c = await collection();
      const eligible = await items(c, 3);
      await items(c, 1, { locked: false });
      await items(c, 1, { mintedSupply: 1n, heldSupply: 0n, tokenStatus: 'MINTED' });
      const held = await items(c, 1, { mintedSupply: 1n, heldSupply: 1n, tokenStatus: 'MINTED' });
      const first = await created({ collection_id: c.id, quantity_listed: 1 });
      assert.equal(first.item_id, null);
      assert.equal((await reservationHolder(eligible[0]!.id))?.holder_id, first.id);
      const rest = await created({ collection_id: c.id });
      assert.equal(rest.quantity_listed, 3, 'two unminted items and one held by the wallet');
      for (const item of [eligible[1]!, eligible[2]!, held[0]!])
        assert.equal((await reservationHolder(item.id))?.holder_id, rest.id);
      assertError(await create({ collection_id: c.id }), 409, 'INVALID_STATE');
    });

    it('lists token ranges and token ids of a collection', async () => {
      const c = await collection();
      const list = await items(c, 4);
      const ranges = await created({
        collection_id: c.id,
        token_ranges: [{ from_id: list[0]!.token_id, to_id: list[1]!.token_id }],
      });
      assert.equal(ranges.quantity_listed, 2);
      const ids = await created({ collection_id: c.id, token_ids: [list[3]!.token_id] });
      assert.equal(ids.quantity_listed, 1);
      assertError(
        await create({ collection_id: c.id, token_ids: [list[0]!.token_id] }),
        409,
        'ITEM_RESERVED',
      );
    });

    it('refuses named items that are not locked, reserved or minted and not held', async () => {
      const c = await collection();
      const [unlocked] = await items(c, 1, { locked: false });
      assertError(await create({ item_id: unlocked!.id }), 409, 'ITEM_NOT_LOCKED');
      const [sold] = await items(c, 1, { mintedSupply: 1n, heldSupply: 0n, tokenStatus: 'MINTED' });
      assertError(await create({ item_id: sold!.id }), 409, 'ITEM_ALREADY_MINTED');
      const [item, other] = await items(c, 2);
      await created({ item_id: item!.id });
      assertError(await create({ item_ids: [other!.id, item!.id] }), 409, 'ITEM_RESERVED');
      assert.equal(await reservationHolder(other!.id), null, 'a failed create reserves nothing');
    });

    it('takes exactly one selector form; collection-level listings are ERC721 only', async () => {
      const c = await collection();
      const [item] = await items(c, 1);
      assertError(await create({ item_id: item!.id, collection_id: c.id }), 400, 'INVALID_SELECTION');
      assertError(await create({}), 400, 'INVALID_SELECTION');
      const c1155 = await collection({ deployedOn: 'FlexibleERC1155' });
      await items(c1155, 1, { maxSupply: 10n });
      assertError(await create({ collection_id: c1155.id }), 400, 'INVALID_SELECTION');
    });

    it('lists an ERC1155 item: quantity_listed defaults to its remaining supply; more is INSUFFICIENT_SUPPLY', async () => {
      const c = await collection({ deployedOn: 'FlexibleERC1155' });
      const [a, b] = await items(c, 2, { maxSupply: 10n });
      assertError(await create({ item_id: a!.id, quantity_listed: 11 }), 422, 'INSUFFICIENT_SUPPLY');
      const all = await created({ item_id: a!.id, max_quantity_per_tx: 5 });
      assert.equal(all.quantity_listed, 10);
      const some = await created({ item_id: b!.id, quantity_listed: 4 });
      assert.equal(some.quantity_listed, 4);
      assert.equal((await reservationHolder(b!.id))?.quantity, '4');
    });

    it('refuses more ERC721 units than eligible items (INSUFFICIENT_SUPPLY) and max_quantity_per_tx out of bounds', async () => {
      const c = await collection();
      await items(c, 2);
      assertError(await create({ collection_id: c.id, quantity_listed: 3 }), 422, 'INSUFFICIENT_SUPPLY');
      assertError(await create({ collection_id: c.id, quantity_listed: 0 }), 400, 'VALIDATION_FAILED');
      assertError(await create({ collection_id: c.id, max_quantity_per_tx: 0 }), 400, 'VALIDATION_FAILED');
      assertError(await create({ collection_id: c.id, price: '-1' }), 400, 'VALIDATION_FAILED');
      assertError(await create({ collection_id: c.id, payment_providers: [] }), 400, 'VALIDATION_FAILED');
      assertError(
        await create({ collection_id: c.id, payment_providers: ['PAYPAL'] }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await create({
          collection_id: c.id,
          start_time: '2026-12-02T00:00:00.000Z',
          end_time: '2026-12-01T00:00:00.000Z',
        }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('checks currencies against providers and keeps EMAIL_CLAIM listings free', async () => {
      const c = await voucherCollection();
      const [item] = await items(c, 1);
      assertError(await create({ item_id: item!.id, price: '5' }), 400, 'VALIDATION_FAILED');
      assertError(
        await create({
          item_id: item!.id,
          currency: 'ETH',
          payment_providers: ['CARD_PROVIDER'],
          price: '100',
        }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await create({
          item_id: item!.id,
          currency: 'EUR',
          payment_providers: ['CRYPTO_PROVIDER'],
          price: '100',
        }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await create({
          item_id: item!.id,
          currency: 'USD',
          payment_providers: ['MINT_VOUCHER'],
          price: '100',
        }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await create({ item_id: item!.id, currency: 'DOGE', payment_providers: ['EMAIL_CLAIM'] }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('answers NOT_READY for card and crypto providers the organization has not set up', async () => {
      const c = await collection();
      const [item] = await items(c, 1);
      assertError(
        await create({ item_id: item!.id, payment_providers: ['CARD_PROVIDER'], price: '500' }),
        422,
        'CARD_PROVIDER_NOT_READY',
      );
      assertError(
        await create({ item_id: item!.id, payment_providers: ['CRYPTO_PROVIDER'], price: '500' }),
        422,
        'CRYPTO_PROVIDER_NOT_READY',
      );
    });

    it('needs a payout address, the MINT_VOUCHER capability and unminted items for mint vouchers', async () => {
      const voucherBody = { currency: 'ETH', price: '1000', payment_providers: ['MINT_VOUCHER'] };
      const c = await voucherCollection();
      const [item] = await items(c, 1);
      assertError(await create({ item_id: item!.id, ...voucherBody }), 422, 'PAYOUT_ADDRESS_REQUIRED');
      await db()
        .updateTable('organizations')
        .set({ payout_address: randomAddress() })
        .where('id', '=', organizationId)
        .execute();
      const plain = await collection();
      const [plainItem] = await items(plain, 1);
      assertError(await create({ item_id: plainItem!.id, ...voucherBody }), 422, 'MISSING_MINT_CAPABILITY');
      const [held] = await items(c, 1, { mintedSupply: 1n, heldSupply: 1n, tokenStatus: 'MINTED' });
      assertError(await create({ item_id: held!.id, ...voucherBody }), 409, 'ITEM_ALREADY_MINTED');
      const listing = await created({
        item_id: item!.id,
        ...voucherBody,
        policy: { type: 'FCFS', tx_payer: 'BUYER' },
      });
      assert.equal(listing.policy.tx_payer, 'BUYER');
      assert.deepEqual(listing.settlement_currency, { MINT_VOUCHER: 'ETH' });
    });

    it('checks every policy field and its bounds', async () => {
      const c = await collection();
      const [item] = await items(c, 1);
      const bad = [
        { type: 'FCFS', payment_session_duration: { timeout_seconds: 59 } },
        { type: 'FCFS', payment_session_duration: { timeout_seconds: 86401 } },
        { type: 'FCFS', payment_session_duration: { provider_override: { EMAIL_CLAIM: 10 } } },
        { type: 'FCFS', max_per_user: 0 },
        { type: 'FCFS', email_claim_duration: 59 },
        { type: 'FCFS', item_assignment_strategy: 'LOWEST' },
        { type: 'FCFS', snapshot_id: 'snap' },
        { type: 'FCFS', tx_payer: 'BUYER' },
        { type: 'ALLOW_LIST' },
        { type: 'FCFS', eth_addresses: [randomAddress()] },
        { type: 'ALLOW_LIST', eth_addresses: ['0x12'] },
        { type: 'RAFFLE' },
      ];
      for (const p of bad)
        assertError(await create({ item_id: item!.id, policy: p }), 400, 'VALIDATION_FAILED');
      const address = randomAddress();
      const listing = await created({
        item_id: item!.id,
        policy: {
          type: 'ALLOW_LIST',
          email_addresses: ['Buyer@Example.com'],
          eth_addresses: [address.toLowerCase()],
          max_per_user: 2,
          payment_session_duration: { timeout_seconds: 60, provider_override: { EMAIL_CLAIM: 86400 } },
          email_claim_duration: 3600,
          item_assignment_strategy: 'RANDOM',
        },
      });
      assert.deepEqual(listing.policy.email_addresses, ['buyer@example.com']);
      assert.deepEqual(listing.policy.eth_addresses, [address]);
      assert.deepEqual(listing.policy.payment_session_duration, {
        timeout_seconds: 60,
        provider_override: { EMAIL_CLAIM: 86400 },
      });
    });

    it('needs a campaign of the organization (404) and forgets it when the campaign is deleted', async () => {
      const c = await collection();
      const [a, b] = await items(c, 2);
      const foreign = await env.call('POST', '/v1/marketing-campaigns', {
        token: stranger.token,
        body: { name: 'theirs', email_from: 'Them' },
      });
      assert.equal(foreign.statusCode, 201, foreign.body);
      assertError(await create({ item_id: a!.id, campaign_id: foreign.json().id }), 404, 'NOT_FOUND');
      const own = await env.call('POST', '/v1/marketing-campaigns', {
        token: admin.token,
        body: { name: `ours ${seq}`, email_from: 'Us' },
      });
      const listing = await created({ item_id: b!.id, campaign_id: own.json().id });
      assert.equal(listing.campaign_id, own.json().id);
      const deleted = await env.call('DELETE', `/v1/marketing-campaigns/${own.json().id}`, {
        token: admin.token,
      });
      assert.equal(deleted.statusCode, 204, deleted.body);
      const after = await env.call('GET', `/v1/listings/${listing.id}`, { token: admin.token });
      assert.equal(after.json().campaign_id, null);
    });

    it('is refused to members (403) and answers 404 for another organization', async () => {
      const c = await collection();
      const [item] = await items(c, 1);
      assertError(await create({ item_id: item!.id }, member.token), 403, 'FORBIDDEN');
      assertError(await create({ item_id: item!.id }, stranger.token), 404, 'NOT_FOUND');
    });
  });

  describe('deployment', () => {
    const deploy = async (outcome: 'SUCCESS' | 'FAILURE') => {
      const c = await collection({ contractAddress: null, deploymentStatus: 'PENDING' });
      const [item] = await items(c, 1);
      const listing = await created({ item_id: item!.id });
      assert.equal(listing.status, 'PENDING_TX');
      const address = randomAddress();
      const transaction = await insertTransaction(db(), organizationId, {
        type: 'DEPLOY',
        ...completedTransactionColumns(Number(seq++), outcome),
        contract_address: outcome === 'SUCCESS' ? address : null,
      });
      await db()
        .updateTable('collections')
        .set({ deployment_transaction_id: transaction.id })
        .where('id', '=', c.id)
        .execute();
      await settleTransaction(db(), env.ctx, transaction.id);
      const after = await env.call('GET', `/v1/listings/${listing.id}`, { token: admin.token });
      return { listing: after.json(), item: item! };
    };

    it('is PENDING_TX while the deployment is in flight and ACTIVE once it succeeds', async () => {
      const { listing, item } = await deploy('SUCCESS');
      assert.equal(listing.status, 'ACTIVE');
      assert.equal((await reservationHolder(item.id))?.holder_id, listing.id);
    });

    it('is CANCELLED with its items released when the deployment fails', async () => {
      const { listing, item } = await deploy('FAILURE');
      assert.equal(listing.status, 'CANCELLED');
      assert.equal(await reservationHolder(item.id), null);
    });
  });

  describe('edit, cancel, read', () => {
    it('edits the window, policy (same type) and campaign while ACTIVE', async () => {
      const c = await collection();
      const [item] = await items(c, 1);
      const listing = await created({ item_id: item!.id });
      const start = new Date(Date.now() + 3_600_000).toISOString();
      const edited = await env.call('PATCH', `/v1/listings/${listing.id}`, {
        token: admin.token,
        body: { start_time: start, policy: { type: 'FCFS', max_per_user: 3 } },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.equal(edited.json().start_time, start);
      assert.equal(edited.json().policy.max_per_user, 3);
      assertError(
        await env.call('PATCH', `/v1/listings/${listing.id}`, {
          token: admin.token,
          body: { policy: { type: 'ALLOW_LIST', email_addresses: ['a@example.com'] } },
        }),
        409,
        'INVALID_STATE',
      );
      assertError(
        await env.call('PATCH', `/v1/listings/${listing.id}`, {
          token: admin.token,
          body: { end_time: new Date(Date.now()).toISOString() },
        }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await env.call('PATCH', `/v1/listings/${listing.id}`, { token: stranger.token, body: {} }),
        404,
        'NOT_FOUND',
      );
    });

    it('cancels: items released, then neither edit nor cancel again', async () => {
      const c = await collection();
      const [item] = await items(c, 1);
      const listing = await created({ item_id: item!.id });
      const cancelled = await env.call('POST', `/v1/listings/${listing.id}/cancel`, { token: admin.token });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.equal(cancelled.json().status, 'CANCELLED');
      assert.equal(await reservationHolder(item!.id), null);
      assertError(
        await env.call('POST', `/v1/listings/${listing.id}/cancel`, { token: admin.token }),
        409,
        'INVALID_STATE',
      );
      assertError(
        await env.call('PATCH', `/v1/listings/${listing.id}`, {
          token: admin.token,
          body: { end_time: null },
        }),
        409,
        'INVALID_STATE',
      );
      const again = await created({ item_id: item!.id });
      assert.equal(again.status, 'ACTIVE', 'a released item can be listed again');
    });

    it('lists with item_id, collection_id and repeated status filters; other organizations see none', async () => {
      const c = await collection();
      const [a, b] = await items(c, 2);
      const first = await created({ item_id: a!.id });
      const second = await created({ collection_id: c.id });
      await env.call('POST', `/v1/listings/${first.id}/cancel`, { token: admin.token });
      const byCollection = await env.call('GET', '/v1/listings', {
        token: member.token,
        query: { collection_id: c.id },
      });
      assert.deepEqual(
        byCollection.json().results.map((l: { id: string }) => l.id),
        [first.id, second.id],
      );
      const byItem = await env.call('GET', '/v1/listings', { token: admin.token, query: { item_id: b!.id } });
      assert.deepEqual(
        byItem.json().results.map((l: { id: string }) => l.id),
        [second.id],
      );
      const byStatus = await env.call('GET', '/v1/listings', {
        token: admin.token,
        query: { collection_id: c.id, status: ['CANCELLED', 'COMPLETE'] },
      });
      assert.deepEqual(
        byStatus.json().results.map((l: { id: string }) => l.id),
        [first.id],
      );
      assertError(
        await env.call('GET', '/v1/listings', { token: admin.token, query: { status: 'SOLD' } }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await env.call('GET', '/v1/listings', { token: admin.token, query: { limit: '1001' } }),
        400,
        'VALIDATION_FAILED',
      );
      const theirs = await env.call('GET', '/v1/listings', {
        token: stranger.token,
        query: { collection_id: c.id },
      });
      assert.equal(theirs.json().total_results, 0);
      assertError(
        await env.call('GET', `/v1/listings/${first.id}`, { token: stranger.token }),
        404,
        'NOT_FOUND',
      );
    });

    it('shows buyers the public listing without organization internals, and their eligibility', async () => {
      const c = await collection();
      const [item] = await items(c, 1);
      const listing = await created({
        item_id: item!.id,
        policy: { type: 'ALLOW_LIST', email_addresses: ['vip@example.com'], max_per_user: 1 },
      });
      const view = await env.call('GET', `/v1/public/listings/${listing.id}`);
      assert.equal(view.statusCode, 200, view.body);
      const body = view.json();
      assert.equal(body.quantity_available, 1);
      assert.equal(body.contract_address, c.contract_address);
      assert.deepEqual([body.network_id, body.token_type], [c.network_id, c.token_type]);
      for (const hidden of ['organization_id', 'campaign_id']) assert.equal(hidden in body, false);
      assert.equal('email_addresses' in body.policy, false);
      const eligible = await env.call('GET', `/v1/public/listings/${listing.id}/eligibility`, {
        query: { email: 'VIP@example.com' },
      });
      assert.deepEqual(eligible.json(), {
        is_eligible: true,
        quantity_claimed: 0,
        quantity_allowed: 1,
        reason: null,
      });
      const outsider = await env.call('GET', `/v1/public/listings/${listing.id}/eligibility`, {
        query: { email: 'who@example.com' },
      });
      assert.equal(outsider.json().reason, 'NOT_ON_ALLOW_LIST');
      assertError(await env.call('GET', `/v1/public/listings/${c.id}`), 404, 'NOT_FOUND');
    });
  });
});
