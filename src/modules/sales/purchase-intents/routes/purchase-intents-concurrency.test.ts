import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { testPayments } from '../../../../../test/support/payment-sessions.ts';
import { createPaidListing, listingCounters } from '../../../../../test/support/sales.ts';
import { insertItems } from '../../../../../test/support/token-requests.ts';
import { randomSample } from '../../../../lib/random.ts';
import { takeHeldItems } from '../../../catalog/items/item-flows.service.ts';
import { confirmPurchaseIntent } from '../purchase-confirmation.service.ts';
import { LIMITS } from '../purchase-creation.service.ts';
import { expireDueIntents } from '../purchase-payments.service.ts';

const UNITS = 100;
const REQUESTS = 2000;
const CONCURRENCY = 64;

/** Runs `count` calls of `task`, at most `limit` at a time; answers their results in order. */
async function bounded<T>(count: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

// CARD_PROVIDER intents here go through an in-memory provider (card payments have their own tests).
const { ports } = testPayments();

describe('purchase intents under concurrency (the service over HTTP on a real port)', () => {
  let env: TestEnv;
  let admin: Actor;
  let baseUrl: string;
  const saved = { ...LIMITS };

  before(async () => {
    env = await setupTest({}, { ports });
    await env.insertNetwork(31337);
    ({ admin } = await env.createTenant());
    await env.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
    // Every request comes from 127.0.0.1: the per-address limit would refuse the load itself.
    LIMITS.perIp = { ...LIMITS.perIp, max: 1_000_000 };
  });
  after(async () => {
    Object.assign(LIMITS, saved);
    await env.close();
  });

  const buy = async (listingId: string, i: number) => {
    const response = await fetch(`${baseUrl}/v1/public/purchase-intents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        listing_id: listingId,
        quantity: 1,
        provider: 'CARD_PROVIDER',
        buyer: { email: `load-${listingId.slice(-6)}-${i}@example.com` },
      }),
    });
    const body = (await response.json()) as { id?: string; error?: { code: string } };
    return { status: response.status, id: body.id, code: body.error?.code };
  };

  it('takes exactly 100 holds of 2,000 concurrent creations, frees them all at expiry, and never sells a unit twice', async () => {
    const collection = await insertCollection(env.database.db, {
      organizationId: admin.user.organization_id,
      deployedOn: 'FlexibleERC721',
    });
    await insertItems(env.database.db, UNITS, {
      collectionId: collection.id,
      organizationId: collection.organization_id,
      firstTokenId: 1n,
    });
    const listing = await createPaidListing(env, admin.token, { collection_id: collection.id });
    assert.equal(listing.quantity_listed, UNITS);

    const first = await bounded(REQUESTS, CONCURRENCY, (i) => buy(listing.id, i));
    const held = first.filter((r) => r.status === 201);
    const refused = first.filter((r) => r.status !== 201);
    assert.equal(held.length, UNITS);
    assert.deepEqual(
      [...new Set(refused.map((r) => `${r.status} ${r.code}`))],
      ['422 INSUFFICIENT_SUPPLY'],
      'every other creation is refused for supply',
    );
    const counters = () => listingCounters(env, listing.id);
    assert.deepEqual(await counters(), { quantity_held: UNITS, quantity_sold: 0 });

    // Expiry: every hold ends and every unit can be bought again.
    await env.database.db
      .updateTable('purchase_intents')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('listing_id', '=', listing.id)
      .execute();
    const expired = await expireDueIntents(env.database.db, env.ctx, 1000);
    assert.equal(expired, UNITS);
    assert.deepEqual(await counters(), { quantity_held: 0, quantity_sold: 0 });

    const second = await bounded(REQUESTS / 4, CONCURRENCY, (i) => buy(listing.id, REQUESTS + i));
    const again = second.filter((r) => r.status === 201);
    assert.equal(again.length, UNITS, 'all 100 units are available again after expiry');

    // Each confirmed twice, concurrently: 100 sales, each item sold once.
    const outcomes = await bounded(again.length * 2, 16, (i) =>
      env.database.db
        .transaction()
        .execute((tx) => confirmPurchaseIntent(tx, env.ctx, again[i % again.length]!.id!)),
    );
    assert.equal(outcomes.filter((o) => o === 'CONFIRMED').length, UNITS);
    assert.deepEqual(await counters(), { quantity_held: 0, quantity_sold: UNITS });
    const intents = await env.database.db
      .selectFrom('purchase_intents')
      .select(['item_ids'])
      .where('listing_id', '=', listing.id)
      .where('status', '=', 'CONFIRMED')
      .execute();
    const sold = intents.flatMap((i) => i.item_ids);
    assert.equal(sold.length, UNITS);
    assert.equal(new Set(sold).size, UNITS, 'no item is assigned twice');
    const status = await env.database.db
      .selectFrom('listings')
      .select('status')
      .where('id', '=', listing.id)
      .executeTakeFirstOrThrow();
    assert.equal(status.status, 'COMPLETE');
  });

  it("assigns items while the listing's row is locked elsewhere, and concurrent takers never share one, FCFS or RANDOM", async () => {
    const db = env.database.db;
    const collection = await insertCollection(db, {
      organizationId: admin.user.organization_id,
      deployedOn: 'FlexibleERC721',
    });
    await insertItems(db, 6, {
      collectionId: collection.id,
      organizationId: collection.organization_id,
      firstTokenId: 1n,
    });
    const listing = await createPaidListing(env, admin.token, { collection_id: collection.id });
    const tokenOf = async (ids: string[]) =>
      (await db.selectFrom('items').select('token_id').where('id', 'in', ids).execute()).map(
        (i) => i.token_id,
      );

    // Another transaction holds the listing's row; two takers, each in its own open transaction.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = db.transaction().execute(async (tx) => {
      await sql`SELECT id FROM listings WHERE id = ${listing.id} FOR UPDATE`.execute(tx);
      locked();
      await released;
    });
    await isLocked;
    const take = (pick?: (c: readonly string[], n: number) => string[]) => {
      let done: (ids: string[]) => void = () => {};
      const taken = new Promise<string[]>((resolve) => {
        done = resolve;
      });
      let finish: () => void = () => {};
      const finished = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const transaction = db.transaction().execute(async (tx) => {
        // A wait on the listing's row would end this transaction with an error, not hang it.
        await sql`SET LOCAL lock_timeout = '2s'`.execute(tx);
        done(await takeHeldItems(tx, listing.id, 2, pick));
        await finished;
      });
      return {
        taken,
        end: async () => {
          finish();
          await transaction;
        },
      };
    };
    const first = take();
    const second = take();
    const [a, b] = await Promise.all([first.taken, second.taken]);
    // FCFS: the lowest token ids, each taken once.
    assert.deepEqual([...(await tokenOf(a)), ...(await tokenOf(b))].sort(), ['1', '2', '3', '4']);
    const third = take(randomSample);
    const c = await third.taken;
    assert.deepEqual((await tokenOf(c)).sort(), ['5', '6'], 'RANDOM draws among the items nobody holds');
    await Promise.all([first.end(), second.end(), third.end()]);
    release();
    await holder;
  });
});
