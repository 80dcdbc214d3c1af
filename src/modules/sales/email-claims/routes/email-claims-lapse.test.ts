import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { activeHolder } from '../../../../../test/support/sales.ts';
import { expireDueClaims } from '../email-claims.service.ts';
import {
  type EmailClaimsFixture,
  emailClaimCalls,
  randomAddress,
  seedEmailClaims,
} from './email-claims.test-setup.ts';

/**
 * A claim past its expiration reads as inactive at once, and its item is free from that moment:
 * the hold gives way to the next holder without waiting for the minute's sweep, which then only
 * marks the claim EXPIRED.
 */
describe('an email claim past its expiration lets its item go as soon as it reads as inactive', () => {
  let env: TestEnv;
  let fixture: EmailClaimsFixture;
  before(async () => {
    env = await setupTest();
    fixture = await seedEmailClaims(env);
  });
  after(() => env?.close());
  const calls = emailClaimCalls(() => ({ env, ...fixture }));
  const db = () => env.database.db;

  /** The claim's expiration passes (its hold carries it too), the sweep not run yet. */
  const lapse = async (claimId: string) => {
    const past = new Date(Date.now() - 1000);
    await db().updateTable('email_claims').set({ expiration: past }).where('id', '=', claimId).execute();
    await db()
      .updateTable('item_reservations')
      .set({ expires_at: past })
      .where('holder_id', '=', claimId)
      .execute();
  };

  it('is inactive, and a mint of its item is taken, before the sweep', async () => {
    const { claim, item } = await calls.claim();
    await lapse(claim.id);
    const read = await env.call('GET', `/v1/email-claims/${claim.id}`, { token: fixture.admin.token });
    assert.equal(read.json().active, false);

    const minted = await env.call('POST', '/v1/mint-requests', {
      token: fixture.admin.token,
      body: { item_id: item.id, to_address: randomAddress() },
    });
    assert.equal(minted.statusCode, 201, minted.body);
    const [record] = minted.json().mint_requests as { id: string }[];
    assert.deepEqual(await activeHolder(env, item.id), { holder_id: record!.id, kind: 'MINT' });
    const released = await db()
      .selectFrom('item_reservations')
      .select(['released_at', 'expires_at'])
      .where('holder_id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(released.released_at, released.expires_at, 'released as of when it lapsed');

    // The sweep then marks the claim EXPIRED and leaves the mint's hold alone.
    assert.equal(await expireDueClaims(db(), env.ctx), 1);
    const expired = await db()
      .selectFrom('email_claims')
      .select(['active', 'deactivation_reason'])
      .where('id', '=', claim.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(expired, { active: false, deactivation_reason: 'EXPIRED' });
    assert.deepEqual(await activeHolder(env, item.id), { holder_id: record!.id, kind: 'MINT' });
  });

  it('lets a collection-wide mint take the item, and a new claim take another lapsed one', async () => {
    const collection = await calls.collection();
    const { claim, item } = await calls.claim({}, collection);
    const mint = () =>
      env.call('POST', '/v1/mint-requests', {
        token: fixture.admin.token,
        body: { collection_id: collection.id, to_address: randomAddress() },
      });
    assert.deepEqual((await mint()).json().mint_requests, [], 'held by the claim while it is active');
    await lapse(claim.id);
    const taken = (await mint()).json().mint_requests as { item_id: string }[];
    assert.deepEqual(
      taken.map((record) => record.item_id),
      [item.id],
    );

    const other = await calls.claim();
    await lapse(other.claim.id);
    const again = await calls.create({ email: calls.newEmail(), item_id: other.item.id });
    assert.equal(again.statusCode, 201, again.body);
  });
});
