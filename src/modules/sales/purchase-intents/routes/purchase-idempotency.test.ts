import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { testPayments } from '../../../../../test/support/payment-sessions.ts';
import { createPaidListing } from '../../../../../test/support/sales.ts';
import { insertItems } from '../../../../../test/support/token-requests.ts';

const { payments, ports } = testPayments('CARD_PROVIDER');

/**
 * A buyer's retry of a purchase is recognised by its Idempotency-Key and body within the
 * listing, from whatever address it comes: one hold and one payment session.
 */
describe('the Idempotency-Key of a purchase intent is kept per listing, not per client address', () => {
  let env: TestEnv;
  let admin: Actor;
  let organizationId: string;
  let seq = 1n;
  before(async () => {
    env = await setupTest({}, { ports });
    await env.insertNetwork(31337);
    ({ organizationId, admin } = await env.createTenant());
  });
  after(() => env?.close());

  const listing = async () => {
    const collection = await insertCollection(env.database.db, {
      organizationId,
      deployedOn: 'FlexibleERC721',
    });
    await insertItems(env.database.db, 2, { collectionId: collection.id, organizationId, firstTokenId: seq });
    seq += 2n;
    return (await createPaidListing(env, admin.token, { collection_id: collection.id })).id;
  };
  const buy = (listingId: string, key: string, ip: string, email = 'buyer@example.test') =>
    env.call('POST', '/v1/public/purchase-intents', {
      body: { listing_id: listingId, quantity: 1, provider: 'CARD_PROVIDER', buyer: { email } },
      headers: { 'idempotency-key': key },
      ip,
    });
  const intentsOf = (listingId: string) =>
    env.database.db.selectFrom('purchase_intents').select('id').where('listing_id', '=', listingId).execute();

  it('answers a retry from another address with the first answer: one hold, one session', async () => {
    const listingId = await listing();
    const key = randomUUID();
    const first = await buy(listingId, key, freshIp());
    assert.equal(first.statusCode, 201, first.body);
    const opened = payments.calls.open.length;
    const retried = await buy(listingId, key, freshIp());
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal(retried.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retried.json(), first.json());
    assert.equal(payments.calls.open.length, opened, 'no second payment session');
    assert.deepEqual(
      (await intentsOf(listingId)).map((i) => i.id),
      [first.json().id],
    );
    const held = await env.database.db
      .selectFrom('listings')
      .select('quantity_held')
      .where('id', '=', listingId)
      .executeTakeFirstOrThrow();
    assert.equal(held.quantity_held, 1);
  });

  it('refuses the key with another body (409), and keeps keys of other listings apart', async () => {
    const listingId = await listing();
    const key = randomUUID();
    assert.equal((await buy(listingId, key, freshIp())).statusCode, 201);
    assertError(
      await buy(listingId, key, freshIp(), 'someone-else@example.test'),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    );
    assert.equal((await intentsOf(listingId)).length, 1);
    const other = await listing();
    const elsewhere = await buy(other, key, freshIp());
    assert.equal(elsewhere.statusCode, 201, elsewhere.body);
    assert.equal(elsewhere.headers['idempotent-replayed'], undefined);
  });
});
