import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { createListing, listingCounters, randomAddress } from '../../../../../test/support/sales.ts';
import { insertItem } from '../../../../../test/support/token-requests.ts';
import { platformContracts } from '../../../../chain/artifacts.ts';
import { capabilitiesOf } from '../../../../chain/capabilities.ts';
import { randomToken, uuidv7 } from '../../../../lib/ids.ts';
import { sha256 } from '../../../../lib/secrets.ts';
import { insertIntentWithHold, UNFINISHED_AFTER_SECONDS } from '../purchase-intents.repository.ts';
import { expireDueIntents } from '../purchase-payments.service.ts';

/**
 * An email claim's free sale is written with its intent in one statement, and completed (its
 * events, items and delivery) in a transaction after it. A crash in between leaves a sale nobody
 * completed: the expiry sweep completes it, once, and what the buyer was sold is delivered.
 */
describe('an email claim sale a crash left uncompleted', () => {
  let env: TestEnv;
  let admin: Actor;
  let organizationId: string;
  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    ({ admin, organizationId } = await env.createTenant());
  });
  after(() => env?.close());

  it('is completed by the sweep once unfinished too long: assigned, its delivery queued, the sold-out listing ended', async () => {
    const db = env.database.db;
    const collection = await insertCollection(db, {
      organizationId,
      contractAddress: randomAddress(),
      tokenType: 'ERC1155',
      abi: [...platformContracts.FlexibleERC1155.abi],
      capabilities: capabilitiesOf(platformContracts.FlexibleERC1155.abi),
    });
    const item = await insertItem(db, {
      collectionId: collection.id,
      organizationId,
      tokenId: 1n,
      maxSupply: 1n,
    });
    const listing = await createListing(env, admin.token, { item_id: item.id });
    // The creation's statement, then the process gone before the sale's completion.
    const id = uuidv7();
    const sold = await insertIntentWithHold(
      db,
      {
        id,
        organization_id: organizationId,
        listing_id: listing.id,
        quantity: 1,
        status: 'PENDING',
        fulfillment_method: 'EMAIL',
        payment_provider: 'EMAIL_CLAIM',
        email: 'stranded@example.test',
        eth_address: null,
        client_token_hash: sha256(randomToken()),
        provider_price: { amount: '0', currency: 'USD' },
        expiration: new Date(Date.now() + 900_000),
      },
      true,
    );
    assert.equal(sold?.status, 'CONFIRMED');
    assert.equal(sold?.completed, true, 'the sale took the last unit');
    assert.deepEqual(await listingCounters(env, listing.id), { quantity_held: 0, quantity_sold: 1 });
    const intent = () =>
      db.selectFrom('purchase_intents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const deliveries = async () =>
      Number(
        (
          await sql<{ n: string }>`
            SELECT count(*) AS n FROM graphile_worker.jobs WHERE key = ${`deliver_purchase_intent:${id}`}`.execute(
            db,
          )
        ).rows[0]!.n,
      );

    // Not unfinished for long yet: the sweep leaves it to its request.
    await expireDueIntents(db, env.ctx);
    assert.equal((await intent()).fulfillment_status, 'PENDING');
    assert.equal(await deliveries(), 0);

    await db
      .updateTable('purchase_intents')
      .set({ created_at: sql<Date>`now() - make_interval(secs => ${UNFINISHED_AFTER_SECONDS + 1})` })
      .where('id', '=', id)
      .execute();
    await expireDueIntents(db, env.ctx);
    const completed = await intent();
    assert.equal(completed.status, 'CONFIRMED');
    assert.equal(completed.fulfillment_status, 'ASSIGNED');
    assert.deepEqual(completed.item_ids, [item.id]);
    assert.equal(await deliveries(), 1);
    const status = await db
      .selectFrom('listings')
      .select('status')
      .where('id', '=', listing.id)
      .executeTakeFirstOrThrow();
    assert.equal(status.status, 'COMPLETE');
    // The listing keeps its item for the one delivery owed.
    const reserved = await db
      .selectFrom('item_reservations')
      .select(['holder_id', 'quantity'])
      .where('item_id', '=', item.id)
      .where('released_at', 'is', null)
      .execute();
    assert.deepEqual(reserved, [{ holder_id: listing.id, quantity: '1' }]);

    // Once: the next sweep finds nothing to complete.
    await expireDueIntents(db, env.ctx);
    assert.equal(await deliveries(), 1);
    assert.deepEqual(await listingCounters(env, listing.id), { quantity_held: 0, quantity_sold: 1 });
  });
});
