import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { completedTransactionColumns } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { mailsTo } from '../../../../../test/support/auth.ts';
import { claimTokenFromMail } from '../../../../../test/support/email-claims.ts';
import { findItemRow } from '../../../../../test/support/token-requests.ts';
import { expireDueClaims } from '../email-claims.service.ts';
import { expireEmailClaimsTask } from '../email-claims.task.ts';
import { emailClaimCalls, randomAddress, seedEmailClaims } from './email-claims.test-setup.ts';

/**
 * An email claim after it is made: resend, revoke, expiry (the sweep and its task) and the
 * settlement of its delivery.
 */
describe('email claims (database level: rules, links, PINs, reservations)', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  let member: Actor;
  let other: Actor;

  before(async () => {
    env = await setupTest();
    ({ organizationId, admin, member, other } = await seedEmailClaims(env));
  });
  after(() => env.close());

  const { db, client, newEmail, claim, activeReservation, pinFor, forgetPinMail, mintRequest, settle } =
    emailClaimCalls(() => ({ env, organizationId, admin }));

  it('resend: a new link (the old one is 404), to the new email when given; not for inactive claims', async () => {
    const { claim: created, token, email } = await claim();
    await pinFor(token, email);
    const resent = await env.call('POST', `/v1/email-claims/${created.id}/resend`, {
      token: admin.token,
      body: {},
    });
    assert.equal(resent.statusCode, 200, resent.body);
    assert.equal((await mailsTo(env, email, 'REDEEM_NFT')).length, 2);
    const second = await claimTokenFromMail(env, email);
    assert.notEqual(second, token);
    assertError(await client().get(token), 404, 'NOT_FOUND');
    const view = (await client().get(second)).json();
    assert.equal(view.status, 'ACTIVE');
    assert.equal(view.pin, null, 'a PIN sent for the old link is forgotten');

    const moved = newEmail();
    const toNew = await env.call('POST', `/v1/email-claims/${created.id}/resend`, {
      token: admin.token,
      body: { email: moved },
    });
    assert.equal(toNew.statusCode, 200, toNew.body);
    assert.equal(toNew.json().email, moved);
    assert.equal(toNew.json().mail_status, 'PENDING');
    const third = await claimTokenFromMail(env, moved);
    assertError(await client().get(second), 404, 'NOT_FOUND');
    assert.equal((await client().get(third)).json().email_hint, `r***@example.com`);
    // email null is a resend to the claim's address.
    const same = await env.call('POST', `/v1/email-claims/${created.id}/resend`, {
      token: admin.token,
      body: { email: null },
    });
    assert.equal(same.statusCode, 200, same.body);
    assert.equal(same.json().email, moved);

    assertError(
      await env.call('POST', `/v1/email-claims/${created.id}/resend`, { token: member.token, body: {} }),
      403,
      'FORBIDDEN',
    );
    assertError(
      await env.call('POST', `/v1/email-claims/${created.id}/resend`, { token: other.token, body: {} }),
      404,
      'NOT_FOUND',
    );
    await env.call('POST', `/v1/email-claims/${created.id}/revoke`, { token: admin.token });
    assertError(
      await env.call('POST', `/v1/email-claims/${created.id}/resend`, { token: admin.token, body: {} }),
      409,
      'INVALID_STATE',
    );
  });

  it('revoke deactivates and releases the item, which a mint request can then take', async () => {
    const { claim: created, token, item } = await claim();
    const revoked = await env.call('POST', `/v1/email-claims/${created.id}/revoke`, { token: admin.token });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal(revoked.json().active, false);
    assert.equal(await activeReservation(item.id), undefined);
    assert.equal((await client().get(token)).json().status, 'REVOKED');
    assertError(
      await env.call('POST', `/v1/email-claims/${created.id}/revoke`, { token: admin.token }),
      409,
      'INVALID_STATE',
    );
    assert.equal((await mintRequest(item.id)).statusCode, 201);
    const status = await env.call('GET', `/v1/items/${item.id}/status`, { token: member.token });
    assert.deepEqual(status.json().email_claim_ids, [created.id], 'the claim stays in the item history');
  });

  it('expiry: due claims become EXPIRED and release their items, once; the link then answers 409', async () => {
    const { claim: created, token, email, item } = await claim();
    const pin = await pinFor(token, email);
    await db()
      .updateTable('email_claims')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', created.id)
      .execute();
    // Before the sweep runs, the claim already reads as expired and cannot be redeemed.
    assert.equal((await client().get(token)).json().status, 'EXPIRED');
    assertError(await client().redeem(token, { address: randomAddress(), pin }), 409, 'INVALID_STATE');
    assert.ok((await expireDueClaims(db(), env.ctx)) >= 1);
    assert.equal(await expireDueClaims(db(), env.ctx), 0, 'idempotent');
    const row = await db()
      .selectFrom('email_claims')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([row.active, row.deactivation_reason], [false, 'EXPIRED']);
    assert.equal(await activeReservation(item.id), undefined);
    assert.equal((await client().get(token)).json().status, 'EXPIRED');
    assertError(await client().verify(token), 409, 'INVALID_STATE');
    assertError(
      await env.call('POST', `/v1/email-claims/${created.id}/revoke`, { token: admin.token }),
      409,
      'INVALID_STATE',
    );
    assert.equal((await mintRequest(item.id)).statusCode, 201);
  });

  it('the expiry task runs every minute and expires what is due', async () => {
    assert.equal(expireEmailClaimsTask.job.schedule, '* * * * *');
    const due = await claim();
    const later = await claim();
    await db()
      .updateTable('email_claims')
      .set({ expiration: new Date(Date.now() - 1) })
      .where('id', '=', due.claim.id)
      .execute();
    await expireEmailClaimsTask.handler({}, undefined as never, env.ctx);
    assert.equal((await client().get(due.token)).json().status, 'EXPIRED');
    assert.equal(await activeReservation(due.item.id), undefined);
    assert.equal((await client().get(later.token)).json().status, 'ACTIVE');
    assert.ok(await activeReservation(later.item.id));
  });

  it('expiry passes over a claim a redeem holds, and the redeem wins', async () => {
    const { claim: created, token, email } = await claim();
    const pin = await pinFor(token, email);
    // The sweep sees the row as due only if the redeem has not committed; holding the row lock
    // while sweeping shows SKIP LOCKED leaves it alone.
    await db()
      .transaction()
      .execute(async (tx) => {
        await tx.selectFrom('email_claims').select('id').where('id', '=', created.id).forUpdate().execute();
        await tx
          .updateTable('email_claims')
          .set({ expiration: new Date(Date.now() - 1000) })
          .where('id', '=', created.id)
          .execute();
        assert.equal(await expireDueClaims(db(), env.ctx), 0, 'the locked claim is passed over');
        await tx
          .updateTable('email_claims')
          .set({ expiration: new Date(Date.now() + 3600_000) })
          .where('id', '=', created.id)
          .execute();
      });
    const redeemed = await client().redeem(token, { address: randomAddress(), pin });
    assert.equal(redeemed.statusCode, 200, redeemed.body);
    await db()
      .updateTable('email_claims')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', created.id)
      .execute();
    assert.equal(await expireDueClaims(db(), env.ctx), 0, 'a claimed claim never expires');
    assert.equal((await client().get(token)).json().status, 'CLAIMED');
  });

  it('settlement: success mails CLAIMED_NFT once; failure reopens the claim with its reservation', async () => {
    const ok = await claim();
    const okPin = await pinFor(ok.token, ok.email);
    const address = randomAddress();
    const okTx = (await client().redeem(ok.token, { address, pin: okPin })).json().transaction_id;
    await settle(okTx, { ...completedTransactionColumns(700, 'SUCCESS'), tx_hash: `0x${'cd'.repeat(32)}` });
    const claimed = await mailsTo(env, ok.email, 'CLAIMED_NFT');
    assert.equal(claimed.length, 1, 'exactly one CLAIMED_NFT, though settlement ran twice');
    assert.ok(claimed[0]!.text.includes(address));
    const okView = (await client().get(ok.token)).json();
    assert.deepEqual([okView.status, okView.delivery.state], ['CLAIMED', 'COMPLETED']);
    assert.equal((await findItemRow(db(), ok.item.id)).token_status, 'MINTED');

    const ko = await claim();
    const koPin = await pinFor(ko.token, ko.email);
    const koTx = (await client().redeem(ko.token, { address, pin: koPin })).json().transaction_id;
    await settle(koTx, { state: 'CANCELLED', failure_reason: 'execution reverted' });
    assert.equal((await mailsTo(env, ko.email, 'CLAIMED_NFT')).length, 0);
    const koView = (await client().get(ko.token)).json();
    assert.equal(koView.status, 'ACTIVE', 'reopened: the recipient may redeem again');
    assert.equal(koView.delivery.state, 'FAILED');
    const reservation = await activeReservation(ko.item.id);
    assert.deepEqual([reservation?.kind, reservation?.holder_id], ['EMAIL_CLAIM', ko.claim.id]);
    assert.equal(reservation?.expires_at?.toISOString(), ko.claim.expiration);
    assert.equal((await findItemRow(db(), ko.item.id)).token_status, 'NOT_MINTED');
    assertError(await mintRequest(ko.item.id), 409, 'ITEM_RESERVED');
    const got = (await env.call('GET', `/v1/email-claims/${ko.claim.id}`, { token: member.token })).json();
    assert.deepEqual([got.claimed, got.active], [false, true]);
    // Redeemed again with a new PIN.
    await forgetPinMail(ko.claim.id);
    const again = await pinFor(ko.token, ko.email);
    const retried = await client().redeem(ko.token, { address, pin: again });
    assert.equal(retried.statusCode, 200, retried.body);
    assert.notEqual(retried.json().transaction_id, koTx);

    // A delivery that fails after the claim's expiration: the claim ends EXPIRED, the item free.
    const late = await claim();
    const latePin = await pinFor(late.token, late.email);
    const lateTx = (await client().redeem(late.token, { address, pin: latePin })).json().transaction_id;
    await db()
      .updateTable('email_claims')
      .set({ expiration: new Date(Date.now() - 1000) })
      .where('id', '=', late.claim.id)
      .execute();
    await settle(lateTx, completedTransactionColumns(701, 'FAILURE'));
    assert.equal((await client().get(late.token)).json().status, 'EXPIRED');
    assert.equal(await activeReservation(late.item.id), undefined);
    assert.equal((await mintRequest(late.item.id)).statusCode, 201);
  });
});
