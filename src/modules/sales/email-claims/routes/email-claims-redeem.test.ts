import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { assertError } from '../../../../../test/assertions.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { freshIp, mailsTo, seedRateLimit } from '../../../../../test/support/auth.ts';
import { claimTokenFromMail, pinFromMail } from '../../../../../test/support/email-claims.ts';
import { findItemRow } from '../../../../../test/support/token-requests.ts';
import { LIMITS } from '../email-claim-rules.ts';
import { emailClaimCalls, randomAddress, seedEmailClaims } from './email-claims.test-setup.ts';

/**
 * The recipient's side of an email claim: the PIN mailed by verify, redeem (its checks, the mint or
 * transfer it starts, its races and rollback) and the rate limits of the public routes.
 */
describe('email claims (database level: rules, links, PINs, reservations)', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  let member: Actor;

  before(async () => {
    env = await setupTest();
    ({ organizationId, admin, member } = await seedEmailClaims(env));
  });
  after(() => env.close());

  const {
    db,
    client,
    collection,
    erc1155Collection,
    items,
    newEmail,
    create,
    claim,
    activeReservation,
    pinFor,
    forgetPinMail,
  } = emailClaimCalls(() => ({ env, organizationId, admin }));

  it('verify mails a 6-digit PIN valid 15 minutes, at most one mail a minute (429 with Retry-After)', async () => {
    const { claim: created, token, email } = await claim();
    const sent = await client().verify(token);
    assert.equal(sent.statusCode, 200, sent.body);
    assert.equal(sent.json().tries_left, 5);
    const minutes = (Date.parse(sent.json().expires_at) - Date.parse(sent.json().sent_at)) / 60_000;
    assert.equal(minutes, 15);
    const pin = await pinFromMail(env, email);
    assert.match(pin, /^\d{6}$/);
    const row = await db()
      .selectFrom('email_claims')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.ok(row.pin_hash && !row.pin_hash.toString('hex').includes(pin), 'the PIN is stored hashed');
    const view = (await client().get(token)).json();
    assert.deepEqual(view.pin, {
      sent_at: sent.json().sent_at,
      expires_at: sent.json().expires_at,
      tries_left: 5,
    });
    const admin = await env.call('GET', `/v1/email-claims/${created.id}`, { token: member.token });
    assert.equal(admin.json().last_pin_code_email_sent_at, sent.json().sent_at);

    const again = await client().verify(token);
    assertError(again, 429, 'RATE_LIMITED');
    const retryAfter = Number(again.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal((await mailsTo(env, email, 'CLAIM_PINCODE')).length, 1, 'no second mail');

    // A minute later: a new PIN replaces the old one, with its tries reset.
    assertError(
      await client().redeem(token, { address: randomAddress(), pin: pin === '000000' ? '000001' : '000000' }),
      401,
      'INVALID_CREDENTIALS',
    );
    await forgetPinMail(created.id);
    const newPin = await pinFor(token, email);
    assert.equal((await client().get(token)).json().pin.tries_left, 5);
    if (newPin !== pin) {
      const old = await client().redeem(token, { address: randomAddress(), pin });
      assertError(old, 401, 'INVALID_CREDENTIALS');
    }
  });

  it('redeem: state before PIN (409), no PIN or an expired one (401: request a new one), wrong PIN (401 with tries left), 5th try burns it', async () => {
    const { claim: created, token, email } = await claim();
    const address = randomAddress();
    const noPin = assertError(
      await client().redeem(token, { address, pin: '123456' }),
      401,
      'INVALID_CREDENTIALS',
    );
    assert.match(noPin.detail, /request a new one/);

    const pin = await pinFor(token, email);
    const wrong = pin === '999999' ? '999998' : '999999';
    for (let left = 4; left >= 1; left--) {
      const error = assertError(
        await client().redeem(token, { address, pin: wrong }),
        401,
        'INVALID_CREDENTIALS',
      );
      assert.match(error.detail, new RegExp(`${left} tr(y|ies) left`));
      assert.equal((await client().get(token)).json().pin.tries_left, left);
    }
    const fifth = assertError(
      await client().redeem(token, { address, pin: wrong }),
      401,
      'INVALID_CREDENTIALS',
    );
    assert.match(fifth.detail, /request a new one/);
    assert.equal((await client().get(token)).json().pin, null, 'burned');
    const burned = assertError(await client().redeem(token, { address, pin }), 401, 'INVALID_CREDENTIALS');
    assert.match(burned.detail, /request a new one/);

    // An expired PIN.
    await forgetPinMail(created.id);
    const fresh = await pinFor(token, email);
    await db()
      .updateTable('email_claims')
      .set({ pin_expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', created.id)
      .execute();
    const expired = assertError(
      await client().redeem(token, { address, pin: fresh }),
      401,
      'INVALID_CREDENTIALS',
    );
    assert.match(expired.detail, /request a new one/);

    // Revoked: 409 whatever the PIN.
    await forgetPinMail(created.id);
    const last = await pinFor(token, email);
    const revoked = await env.call('POST', `/v1/email-claims/${created.id}/revoke`, { token: admin.token });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assertError(await client().redeem(token, { address, pin: '000000' }), 409, 'INVALID_STATE');
    assertError(await client().redeem(token, { address, pin: last }), 409, 'INVALID_STATE');
    assertError(await client().verify(token), 409, 'INVALID_STATE');
    assert.equal((await client().get(token)).json().status, 'REVOKED');
  });

  it('redeem mints through the token-flow pipeline, the reservation handed to the mint record', async () => {
    const { claim: created, token, email, item } = await claim();
    const pin = await pinFor(token, email);
    const address = randomAddress();
    assertError(
      await client().redeem(token, { address: '0x0000000000000000000000000000000000000000', pin }),
      400,
      'VALIDATION_FAILED',
    );
    const redeemed = await client().redeem(token, { address: address.toLowerCase(), pin });
    assert.equal(redeemed.statusCode, 200, redeemed.body);
    const { transaction_id } = redeemed.json();
    assert.deepEqual(redeemed.json(), { status: 'CLAIMED', transaction_id, voucher: null });

    const record = await db()
      .selectFrom('mint_requests')
      .selectAll()
      .where('item_id', '=', item.id)
      .executeTakeFirstOrThrow();
    assert.equal(record.transaction_id, transaction_id);
    assert.equal(record.to_address, address, 'checksummed');
    const reservation = await activeReservation(item.id);
    assert.deepEqual([reservation?.kind, reservation?.holder_id], ['MINT', record.id]);
    assert.equal((await findItemRow(db(), item.id)).token_status, 'MINTING');

    const view = (await client().get(token)).json();
    assert.equal(view.status, 'CLAIMED');
    assert.equal(view.pin, null);
    assert.deepEqual(view.delivery, {
      transaction_id,
      state: 'PENDING',
      tx_hash: null,
      to_address: address,
      token_id: item.token_id,
      network_id: 31337,
      contract_address: (
        await db()
          .selectFrom('collections')
          .select('contract_address')
          .where('id', '=', item.collection_id)
          .executeTakeFirstOrThrow()
      ).contract_address,
    });
    const got = (await env.call('GET', `/v1/email-claims/${created.id}`, { token: member.token })).json();
    assert.equal(got.claimed, true);
    assert.ok(got.claimed_at);
    assert.equal(got.active, true);

    assertError(await client().redeem(token, { address, pin }), 409, 'INVALID_STATE');
    assertError(await client().verify(token), 409, 'INVALID_STATE');
    assertError(
      await env.call('POST', `/v1/email-claims/${created.id}/revoke`, { token: admin.token }),
      409,
      'INVALID_STATE',
    );
    assertError(
      await env.call('POST', `/v1/email-claims/${created.id}/resend`, { token: admin.token, body: {} }),
      409,
      'INVALID_STATE',
    );
  });

  it('redeem transfers a minted item held by the organization wallet', async () => {
    const c = await erc1155Collection();
    const [held] = await items(c, 1, {
      maxSupply: 10n,
      mintedSupply: 5n,
      heldSupply: 5n,
      tokenStatus: 'MINTED',
    });
    const email = newEmail();
    const created = await create({ email, item_id: held!.id, quantity: 3 });
    assert.equal(created.statusCode, 201, created.body);
    const token = await claimTokenFromMail(env, email);
    const pin = await pinFor(token, email);
    const redeemed = await client().redeem(token, { address: randomAddress(), pin });
    assert.equal(redeemed.statusCode, 200, redeemed.body);
    const record = await db()
      .selectFrom('transfer_requests')
      .selectAll()
      .where('item_id', '=', held!.id)
      .executeTakeFirstOrThrow();
    assert.equal(record.quantity, '3');
    assert.equal(record.transaction_id, redeemed.json().transaction_id);
    assert.equal((await activeReservation(held!.id))?.kind, 'TRANSFER');
    assert.equal(
      await db().selectFrom('mint_requests').select('id').where('item_id', '=', held!.id).executeTakeFirst(),
      undefined,
    );
  });

  it('concurrent redeems of one claim: exactly one starts a flow', async () => {
    const { token, email, item } = await claim();
    const pin = await pinFor(token, email);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => client().redeem(token, { address: randomAddress(), pin })),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409], results.map((r) => r.body).join('\n'));
    const records = await db()
      .selectFrom('mint_requests')
      .select('id')
      .where('item_id', '=', item.id)
      .execute();
    assert.equal(records.length, 1);
  });

  it('a redeem that fails after the claim update rolls back whole (claim, PIN, reservation, transaction)', async () => {
    const { claim: created, token, email, item } = await claim();
    const pin = await pinFor(token, email);
    const before = await db()
      .selectFrom('email_claims')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    const transactions = async () =>
      Number(
        (
          await db()
            .selectFrom('transactions')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const txBefore = await transactions();
    // Fault injected after the claim is marked claimed, the reservation moved and the
    // transaction queued: the mint record's insert fails.
    await sql`CREATE FUNCTION claim_fault() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected fault'; END $$`.execute(db());
    await sql`CREATE TRIGGER claim_fault BEFORE INSERT ON mint_requests FOR EACH ROW EXECUTE FUNCTION claim_fault()`.execute(
      db(),
    );
    try {
      const failed = await client().redeem(token, { address: randomAddress(), pin });
      assertError(failed, 500, 'INTERNAL');
    } finally {
      await sql`DROP TRIGGER claim_fault ON mint_requests`.execute(db());
      await sql`DROP FUNCTION claim_fault()`.execute(db());
    }
    const afterRow = await db()
      .selectFrom('email_claims')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(afterRow, before, 'the claim is as it was: unclaimed, same PIN and tries');
    assert.equal(await transactions(), txBefore, 'no transaction queued');
    const reservation = await activeReservation(item.id);
    assert.deepEqual([reservation?.kind, reservation?.holder_id], ['EMAIL_CLAIM', created.id]);
    assert.equal((await findItemRow(db(), item.id)).token_status, 'NOT_MINTED');
    // And the same PIN still redeems.
    const redeemed = await client().redeem(token, { address: randomAddress(), pin });
    assert.equal(redeemed.statusCode, 200, redeemed.body);
  });

  it('races: two claims for one item, two PIN requests, redeem against revoke: one wins each', async () => {
    const c = await collection();
    const [item] = await items(c, 1);
    const creates = await Promise.all([
      create({ email: newEmail(), item_id: item!.id }),
      create({ email: newEmail(), item_id: item!.id }),
    ]);
    assert.deepEqual(creates.map((r) => r.statusCode).sort(), [201, 409]);
    assert.equal(creates.find((r) => r.statusCode === 409)!.json().error.code, 'ITEM_RESERVED');

    const { claim: created, token, email } = await claim();
    const verifies = await Promise.all([client().verify(token), client().verify(token)]);
    assert.deepEqual(verifies.map((r) => r.statusCode).sort(), [200, 429]);
    assert.equal((await mailsTo(env, email, 'CLAIM_PINCODE')).length, 1);

    const pin = await pinFromMail(env, email);
    const [redeemed, revoked] = await Promise.all([
      client().redeem(token, { address: randomAddress(), pin }),
      env.call('POST', `/v1/email-claims/${created.id}/revoke`, { token: admin.token }),
    ]);
    const outcomes = [redeemed.statusCode, revoked.statusCode].sort();
    assert.deepEqual(outcomes, [200, 409], `${redeemed.body} ${revoked.body}`);
    const row = await db()
      .selectFrom('email_claims')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    if (redeemed.statusCode === 200) assert.deepEqual([row.active, row.claimed_at !== null], [true, true]);
    else assert.deepEqual([row.active, row.claimed_at], [false, null]);
  });

  it('the public routes are rate limited per client address', async () => {
    const { token } = await claim();
    const address = freshIp();
    await seedRateLimit(env, LIMITS.readPerIp, address, LIMITS.readPerIp.max);
    const limited = await client().get(token, address);
    assertError(limited, 429, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await client().get(token, freshIp())).statusCode, 200, 'another address is not limited');
    await seedRateLimit(env, LIMITS.verifyPerIp, address, LIMITS.verifyPerIp.max);
    assertError(await client().verify(token, address), 429, 'RATE_LIMITED');
    await seedRateLimit(env, LIMITS.redeemPerIp, address, LIMITS.redeemPerIp.max);
    assertError(
      await client().redeem(token, { address: randomAddress(), pin: '123456' }, address),
      429,
      'RATE_LIMITED',
    );
  });
});
