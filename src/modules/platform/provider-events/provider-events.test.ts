import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTest, type TestEnv } from '../../../../test/harness.ts';
import {
  getProviderEvent,
  markFailed,
  markProcessed,
  recordProviderEvent,
} from './provider-events.service.ts';

describe('the provider events inbox', () => {
  let env: TestEnv;
  let counter = 0;
  const event = (overrides: Partial<Parameters<typeof recordProviderEvent>[1]> = {}) => ({
    provider: 'card-provider',
    eventId: `evt_${++counter}_${Date.now()}`,
    eventType: 'checkout.session.completed',
    account: null,
    payload: '{"id": "evt"}',
    ...overrides,
  });
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  it('records a new event as not a duplicate, and its re-delivery as a duplicate of the same row', async () => {
    const delivered = event({ account: 'acct_42' });
    const first = await recordProviderEvent(env.database.db, delivered);
    const again = await recordProviderEvent(env.database.db, { ...delivered, payload: '{"id":"evt"}' });
    assert.deepEqual(first, { id: first.id, duplicate: false });
    assert.deepEqual(again, { id: first.id, duplicate: true });
    const row = await getProviderEvent(env.database.db, first.id);
    // The first delivery's bytes are kept; a re-delivery changes nothing.
    assert.equal(row.payload, delivered.payload);
    assert.equal(row.account, 'acct_42');
    assert.equal(row.attempts, 0);
    assert.equal(row.processed_at, null);
  });

  it('keys events by provider and event id: the same id from another provider is another event', async () => {
    const card = event();
    const crypto = { ...card, provider: 'crypto-provider' };
    const a = await recordProviderEvent(env.database.db, card);
    const b = await recordProviderEvent(env.database.db, crypto);
    assert.equal(b.duplicate, false);
    assert.notEqual(a.id, b.id);
  });

  it('lets exactly one of concurrent deliveries of one event record it', async () => {
    const delivered = event();
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        env.database.db.transaction().execute((tx) => recordProviderEvent(tx, delivered)),
      ),
    );
    assert.equal(results.filter((r) => !r.duplicate).length, 1);
    assert.equal(new Set(results.map((r) => r.id)).size, 1);
  });

  it('forgets an event whose recording transaction rolled back, so its re-delivery is processed', async () => {
    const delivered = event();
    await assert.rejects(
      env.database.db.transaction().execute(async (tx) => {
        await recordProviderEvent(tx, delivered);
        throw new Error('processing failed');
      }),
      /processing failed/,
    );
    assert.equal((await recordProviderEvent(env.database.db, delivered)).duplicate, false);
  });

  it('counts failed attempts with their printable error, then marks the event processed', async () => {
    const { id } = await recordProviderEvent(env.database.db, event());
    await markFailed(env.database.db, id, new Error('upstream\u0000timed out\n'));
    await markFailed(env.database.db, id, 'x'.repeat(5000));
    let row = await getProviderEvent(env.database.db, id);
    assert.equal(row.attempts, 2);
    assert.equal(row.last_error?.length, 2000);
    await markFailed(env.database.db, id, new Error('upstream\u0000timed out\n'));
    row = await getProviderEvent(env.database.db, id);
    assert.equal(row.last_error, 'upstream timed out');
    await markProcessed(env.database.db, id);
    row = await getProviderEvent(env.database.db, id);
    assert.equal(row.attempts, 4);
    assert.ok(row.processed_at instanceof Date);
    assert.equal(row.last_error, null);
  });

  it('leaves a processed event as it is when a late failure is reported', async () => {
    const { id } = await recordProviderEvent(env.database.db, event());
    await markProcessed(env.database.db, id);
    await markFailed(env.database.db, id, 'late');
    const row = await getProviderEvent(env.database.db, id);
    assert.equal(row.attempts, 1);
    assert.equal(row.last_error, null);
  });

  it('refuses a payload holding U+0000, which PostgreSQL text cannot store', async () => {
    await assert.rejects(recordProviderEvent(env.database.db, event({ payload: 'a\u0000b' })), {
      code: 'VALIDATION_FAILED',
    });
  });
});
