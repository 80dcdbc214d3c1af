import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Address } from 'viem';
import { assertError } from '../../../../../test/assertions.ts';
import { type FlowTest, setupFlowTest } from '../../../../../test/chain/flow.ts';
import type { GateProxy, SeenCall } from '../../../../../test/chain/gate-proxy.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { gateNode } from '../../../../../test/relayer/harness.ts';
import { freshIp } from '../../../../../test/support/auth.ts';
import { createListing, randomAddress } from '../../../../../test/support/sales.ts';
import { insertItems } from '../../../../../test/support/token-requests.ts';
import { UNFINISHED_AFTER_SECONDS } from '../purchase-intents.repository.ts';
import { expireDueIntents } from '../purchase-payments.service.ts';

/**
 * A mint voucher's chain reads are made before the listing is locked: a slow node delays the
 * buyer who waits on it, and nobody else. The node here answers only when the test opens a gate
 * in front of it (test/chain/gate-proxy.ts), so "while the node is slow" is a state the test
 * holds, not a clock.
 */
describe('a MINT_VOUCHER purchase waits on the node with nothing locked', () => {
  let flow: FlowTest;
  let gate: GateProxy;
  let contract: Address;
  let voucherListing: string;
  let otherListing: string;

  before(async () => {
    flow = await setupFlowTest();
    const db = flow.env.database.db;
    const deployed = await flow.deployCollection('ERC721', { variant: 'SignatureERC721' });
    contract = deployed.address;
    await insertItems(db, 3, {
      collectionId: deployed.collection.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    await db
      .updateTable('organizations')
      .set({ payout_address: randomAddress() })
      .where('id', '=', flow.organizationId)
      .execute();
    voucherListing = (
      await createListing(flow.env, flow.admin.token, {
        collection_id: deployed.collection.id,
        currency: 'ETH',
        price: '1000',
        payment_providers: ['MINT_VOUCHER'],
      })
    ).id;
    // Another listing of the organization, sold free by email claim.
    const other = await insertCollection(db, {
      organizationId: flow.organizationId,
      deployedOn: 'FlexibleERC721',
    });
    await insertItems(db, 1, {
      collectionId: other.id,
      organizationId: flow.organizationId,
      firstTokenId: 1n,
    });
    otherListing = (await createListing(flow.env, flow.admin.token, { collection_id: other.id })).id;
    // The network's node is now behind the gate.
    gate = await gateNode(db, flow.chain.dev.rpcUrl);
  });
  after(async () => {
    await gate?.stop();
    await flow?.close();
  });

  const buy = (listingId: string, buyer: Record<string, string>, provider: string) =>
    flow.env.call('POST', '/v1/public/purchase-intents', {
      body: { listing_id: listingId, quantity: 1, provider, buyer },
      ip: freshIp(),
    });

  /** Whether a call reads the voucher contract about `minter` (its nonces(minter)). */
  const names = (call: SeenCall, minter: Address) => {
    const [request] = (call.params ?? []) as [{ to?: string; data?: string } | undefined];
    return (
      call.method === 'eth_call' &&
      request?.to?.toLowerCase() === contract.toLowerCase() &&
      (request.data?.toLowerCase().includes(minter.slice(2).toLowerCase()) ?? false)
    );
  };
  /** The held calls that name `minter`. */
  const heldFor = (minter: Address) => gate.held.filter((call) => names(call, minter));

  it("lets a listing's buyers ask the node together, locks nothing meanwhile, and sells on once it answers", async () => {
    const [first, second] = [randomAddress(), randomAddress()];
    // The reads that name a buyer (nonces(minter)) wait at the gate.
    gate.close((call) => names(call, first) || names(call, second));
    const purchases = [
      buy(voucherListing, { eth_address: first }, 'MINT_VOUCHER'),
      buy(voucherListing, { eth_address: second }, 'MINT_VOUCHER'),
    ];
    // Both buyers of the one listing are waiting on the node at once: neither holds the other up.
    await flow.until(
      async () => (heldFor(first).length > 0 && heldFor(second).length > 0 ? true : undefined),
      'both buyers to ask the node',
      30_000,
    );
    const db = flow.env.database.db;
    // While they wait, the listing's row is not locked, and no transaction of the database is open.
    await db.transaction().execute(async (tx) => {
      const row = await sql<{ id: string }>`
        SELECT id FROM listings WHERE id = ${voucherListing} FOR UPDATE NOWAIT`.execute(tx);
      assert.equal(row.rows.length, 1);
    });
    const open = await sql<{ count: string }>`
      SELECT count(*) FROM pg_stat_activity
      WHERE datname = current_database() AND state LIKE 'idle in transaction%'`.execute(db);
    assert.equal(open.rows[0]!.count, '0');
    // A purchase of another listing goes through meanwhile.
    const elsewhere = await buy(otherListing, { email: 'meanwhile@example.test' }, 'EMAIL_CLAIM');
    assert.equal(elsewhere.statusCode, 201, elsewhere.body);

    gate.open();
    const answers = await Promise.all(purchases);
    for (const answer of answers) assert.equal(answer.statusCode, 201, answer.body);
    const minters = answers.map((a) => (a.json().data as { minter: string }).minter.toLowerCase());
    assert.deepEqual(minters.sort(), [first.toLowerCase(), second.toLowerCase()].sort());
    const held = await db
      .selectFrom('listings')
      .select('quantity_held')
      .where('id', '=', voucherListing)
      .executeTakeFirstOrThrow();
    assert.equal(held.quantity_held, 2);
  });

  it('drops a purchase stranded after its hold (its voucher never signed) once it is unfinished too long, and the unit sells again', async () => {
    const db = flow.env.database.db;
    const counters = () =>
      db
        .selectFrom('listings')
        .select('quantity_held')
        .where('id', '=', voucherListing)
        .executeTakeFirstOrThrow();
    const buyer = randomAddress();
    // The node never answers this buyer's reads: to the database, a process that died after the
    // hold and the item's assignment, before the voucher.
    gate.close((call) => names(call, buyer));
    const purchase = buy(voucherListing, { eth_address: buyer }, 'MINT_VOUCHER');
    await flow.until(
      async () => (heldFor(buyer).length > 0 ? true : undefined),
      'the buyer to ask the node',
      30_000,
    );
    const stranded = await db
      .selectFrom('purchase_intents')
      .selectAll()
      .where(sql<string>`lower(eth_address)`, '=', buyer.toLowerCase())
      .executeTakeFirstOrThrow();
    assert.equal(stranded.status, 'PENDING');
    assert.equal(stranded.data, null);
    assert.equal(stranded.item_ids.length, 1);
    assert.equal((await counters()).quantity_held, 3);
    // Not yet unfinished for long: the sweep leaves it.
    await expireDueIntents(db, flow.env.ctx);
    assert.equal((await counters()).quantity_held, 3);

    await db
      .updateTable('purchase_intents')
      .set({ created_at: sql<Date>`now() - make_interval(secs => ${UNFINISHED_AFTER_SECONDS + 1})` })
      .where('id', '=', stranded.id)
      .execute();
    await expireDueIntents(db, flow.env.ctx);
    assert.equal((await counters()).quantity_held, 2);
    const gone = await db.selectFrom('purchase_intents').select('id').where('id', '=', stranded.id).execute();
    assert.deepEqual(gone, []);
    // Its item is the listing's again.
    const holder = await db
      .selectFrom('item_reservations')
      .select('holder_id')
      .where('item_id', '=', stranded.item_ids[0]!)
      .where('released_at', 'is', null)
      .executeTakeFirstOrThrow();
    assert.equal(holder.holder_id, voucherListing);

    // The stranded request, answered at last, finds its hold gone: it signs nothing.
    gate.open();
    assertError(await purchase, 409, 'INVALID_STATE');
    const vouchers = await db
      .selectFrom('mint_vouchers')
      .select('id')
      .where('minter', '=', buyer.toLowerCase())
      .execute();
    assert.deepEqual(vouchers, []);
    assert.equal((await counters()).quantity_held, 2);
  });

  it('answers 502 UPSTREAM_FAILED and holds nothing when the node does not answer the reads', async () => {
    await gate.stop();
    // The gate gone, its address refuses connections: a node that is down.
    const buyer = randomAddress();
    const answer = await buy(voucherListing, { eth_address: buyer }, 'MINT_VOUCHER');
    assertError(answer, 502, 'UPSTREAM_FAILED');
    const db = flow.env.database.db;
    const counters = await db
      .selectFrom('listings')
      .select('quantity_held')
      .where('id', '=', voucherListing)
      .executeTakeFirstOrThrow();
    assert.equal(counters.quantity_held, 2);
    const intents = await db
      .selectFrom('purchase_intents')
      .select('id')
      .where(sql<string>`lower(eth_address)`, '=', buyer.toLowerCase())
      .execute();
    assert.deepEqual(intents, []);
  });
});
