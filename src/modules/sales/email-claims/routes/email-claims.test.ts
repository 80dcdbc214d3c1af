import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { assertError } from '../../../../../test/assertions.ts';
import { completedTransactionColumns, insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { freshIp, mailsTo, seedRateLimit } from '../../../../../test/support/auth.ts';
import { claimClient, claimTokenFromMail, pinFromMail } from '../../../../../test/support/email-claims.ts';
import { findItemRow, type insertItem, insertItems } from '../../../../../test/support/token-requests.ts';
import type { CollectionRow, TransactionRow } from '../../../../db/schema.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { sha256 } from '../../../../lib/secrets.ts';
import { settleTransaction } from '../../../platform/transactions/transaction-settled.task.ts';
import { expireDueClaims, LIMITS } from '../email-claims.service.ts';
import { expireEmailClaimsTask } from '../email-claims.task.ts';

const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

describe('email claims (database level: rules, links, PINs, reservations)', () => {
  let env: TestEnv;
  let organizationId: string;
  let admin: Actor;
  let member: Actor;
  let other: Actor;
  let seq = 5000n;
  let mails = 0;
  const db = () => env.database.db;
  const client = () => claimClient(env, freshIp);

  before(async () => {
    env = await setupTest();
    await env.insertNetwork(31337);
    ({ organizationId, admin, member, stranger: other } = await env.createTenant());
  });
  after(() => env.close());

  const collection = (fields: Partial<Parameters<typeof insertCollection>[1]> = {}) =>
    insertCollection(db(), { organizationId, deployedOn: 'FlexibleERC721', ...fields });
  const erc1155Collection = () => collection({ deployedOn: 'FlexibleERC1155' });
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
  const newEmail = () => `recipient-${++mails}@example.com`;
  const create = (body: Record<string, unknown>, token = admin.token, headers: Record<string, string> = {}) =>
    env.call('POST', '/v1/email-claims', { token, body: { quantity: 1, ...body }, headers });
  /** A claim on a fresh item, its link's token and its email. */
  const claim = async (fields: Record<string, unknown> = {}, c?: CollectionRow) => {
    const coll = c ?? (await collection());
    const [item] = await items(coll, 1);
    const email = newEmail();
    const response = await create({ email, item_id: item!.id, ...fields });
    assert.equal(response.statusCode, 201, response.body);
    return {
      claim: response.json(),
      token: await claimTokenFromMail(env, email),
      email,
      item: item!,
      collection: coll,
    };
  };
  const claimCount = async () =>
    Number(
      (
        await db()
          .selectFrom('email_claims')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const activeReservation = (itemId: string) =>
    db()
      .selectFrom('item_reservations')
      .selectAll()
      .where('item_id', '=', itemId)
      .where('released_at', 'is', null)
      .executeTakeFirst();
  /** Verify, then read the PIN from the mail. */
  const pinFor = async (token: string, email: string) => {
    const verified = await client().verify(token);
    assert.equal(verified.statusCode, 200, verified.body);
    return pinFromMail(env, email);
  };
  /** Lets verify mail again at once (the one-a-minute rule is tested on its own). */
  const forgetPinMail = (claimId: string) =>
    db()
      .updateTable('email_claims')
      .set({ last_pin_code_email_sent_at: new Date(Date.now() - 61_000) })
      .where('id', '=', claimId)
      .execute();
  const mintRequest = (itemId: string) =>
    env.call('POST', '/v1/mint-requests', {
      token: admin.token,
      body: { item_id: itemId, to_address: randomAddress() },
    });
  const settle = async (transactionId: string, columns: Record<string, unknown>) => {
    const row = (await db()
      .updateTable('transactions')
      .set({ ...columns, completed_at: new Date() })
      .where('id', '=', transactionId)
      .returningAll()
      .executeTakeFirstOrThrow()) as TransactionRow;
    // Twice: a settlement job may run again; nothing may happen twice.
    for (let i = 0; i < 2; i++) await settleTransaction(db(), env.ctx, row.id);
  };

  it('creates a claim: the item reserved until the expiration, the link mailed, only its hash stored', async () => {
    const c = await collection();
    const [item] = await items(c, 1, { createdAt: new Date() });
    const email = newEmail();
    const expiration = new Date(Date.now() + 3 * 24 * 3600 * 1000);
    const response = await create({
      email,
      item_id: item!.id,
      type: 'gift',
      expiration: expiration.toISOString(),
    });
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), [
      'active',
      'campaign_id',
      'claimed',
      'claimed_at',
      'collection_id',
      'created_at',
      'email',
      'expiration',
      'id',
      'item_id',
      'last_pin_code_email_sent_at',
      'mail_error',
      'mail_status',
      'quantity',
      'token_id',
      'tx_hash',
      'tx_payer',
      'type',
      'voucher_id',
    ]);
    assert.equal(body.email, email);
    assert.equal(body.item_id, item!.id);
    assert.equal(body.collection_id, c.id);
    assert.equal(body.quantity, 1);
    assert.equal(body.token_id, item!.token_id);
    assert.equal(body.tx_payer, 'SELLER');
    assert.equal(body.type, 'gift');
    assert.equal(body.active, true);
    assert.equal(body.claimed, false);
    assert.equal(body.claimed_at, null);
    assert.equal(body.tx_hash, null);
    assert.equal(body.voucher_id, null);
    assert.equal(body.expiration, expiration.toISOString());
    assert.equal(body.mail_status, 'PENDING');
    assert.equal(body.mail_error, null);

    const reservation = await activeReservation(item!.id);
    assert.ok(reservation);
    assert.equal(reservation.kind, 'EMAIL_CLAIM');
    assert.equal(reservation.holder_id, body.id);
    assert.equal(reservation.expires_at?.toISOString(), expiration.toISOString());

    const [mail] = await mailsTo(env, email, 'REDEEM_NFT');
    assert.ok(mail);
    const token = await claimTokenFromMail(env, email);
    assert.ok(mail.text.includes(`http://tokens.test/claim?token=${token}`));
    const row = await db()
      .selectFrom('email_claims')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row.token_hash, sha256(token));
    assert.equal(row.mail_outbox_id, mail.id);
    assert.ok(!JSON.stringify(row).includes(token), 'the secret itself is not stored');

    const status = await env.call('GET', `/v1/items/${item!.id}/status`, { token: member.token });
    assert.deepEqual(status.json().email_claim_ids, [body.id]);
    // Held: no mint, transfer or other claim takes it.
    assertError(await mintRequest(item!.id), 409, 'ITEM_RESERVED');
    assertError(await create({ email: newEmail(), item_id: item!.id }), 409, 'ITEM_RESERVED');
  });

  it('defaults the expiration to 7 days and shows a failed mail', async () => {
    const { claim: created } = await claim();
    const days = (Date.parse(created.expiration) - Date.parse(created.created_at)) / (24 * 3600 * 1000);
    assert.ok(Math.abs(days - 7) < 0.001, `expiration in 7 days, got ${days}`);
    await db()
      .updateTable('mail_outbox')
      .set({ status: 'FAILED', last_error: '550 mailbox unavailable' })
      .where(
        'id',
        '=',
        (
          await db()
            .selectFrom('email_claims')
            .select('mail_outbox_id')
            .where('id', '=', created.id)
            .executeTakeFirstOrThrow()
        ).mail_outbox_id!,
      )
      .execute();
    const got = await env.call('GET', `/v1/email-claims/${created.id}`, { token: member.token });
    assert.equal(got.statusCode, 200, got.body);
    assert.equal(got.json().mail_status, 'FAILED');
    assert.equal(got.json().mail_error, '550 mailbox unavailable');
  });

  it('refuses items that cannot be claimed and leaves nothing behind', async () => {
    const c = await collection();
    const [unlocked] = await items(c, 1, { locked: false, maxSupply: null });
    const [mintedElsewhere] = await items(c, 1, { tokenStatus: 'MINTED', mintedSupply: 1n, heldSupply: 0n });
    const [minting] = await items(c, 1);
    assert.equal((await mintRequest(minting!.id)).statusCode, 201);
    const [free] = await items(c, 1);
    const c1155 = await erc1155Collection();
    const [multi] = await items(c1155, 1, {
      maxSupply: 10n,
      mintedSupply: 4n,
      heldSupply: 2n,
      tokenStatus: 'MINTED',
    });
    const otherOrg = await env.createOrganization();
    const foreign = await insertCollection(db(), {
      organizationId: otherOrg.id,
      deployedOn: 'FlexibleERC721',
    });
    const [foreignItem] = await items(foreign, 1);
    const foreignCampaign = uuidv7();
    await db()
      .insertInto('marketing_campaigns')
      .values({ id: foreignCampaign, organization_id: otherOrg.id, name: 'theirs', email_from: 'a@b.test' })
      .execute();
    const undeployed = await collection({ contractAddress: null });
    const [notDeployed] = await items(undeployed, 1);

    const cases: [Record<string, unknown>, number, Parameters<typeof assertError>[2], string?][] = [
      [{ item_id: unlocked!.id }, 409, 'ITEM_NOT_LOCKED'],
      [{ item_id: mintedElsewhere!.id }, 409, 'ITEM_ALREADY_MINTED'],
      [{ item_id: minting!.id }, 409, 'ITEM_RESERVED'],
      [{ item_id: free!.id, quantity: 2 }, 400, 'VALIDATION_FAILED', 'ERC721 quantity is 1'],
      [{ item_id: free!.id, quantity: 0 }, 400, 'VALIDATION_FAILED'],
      [{ item_id: multi!.id, quantity: 7 }, 422, 'INSUFFICIENT_SUPPLY', 'held 2, 6 left to mint'],
      [
        { item_id: free!.id, expiration: new Date(Date.now() - 1000).toISOString() },
        400,
        'VALIDATION_FAILED',
      ],
      [{ item_id: free!.id, campaign_id: foreignCampaign }, 404, 'NOT_FOUND'],
      [{ item_id: free!.id, campaign_id: uuidv7() }, 404, 'NOT_FOUND'],
      [{ item_id: foreignItem!.id }, 404, 'NOT_FOUND'],
      [{ item_id: uuidv7() }, 404, 'NOT_FOUND'],
      [
        { item_id: free!.id, tx_payer: 'BUYER' },
        422,
        'MISSING_MINT_CAPABILITY',
        'BUYER on a contract without MINT_VOUCHER',
      ],
      [{ item_id: notDeployed!.id }, 409, 'INVALID_STATE'],
      [{ item_id: free!.id, email: 'not an email' }, 400, 'VALIDATION_FAILED'],
      [{ item_id: free!.id, surprise: true }, 400, 'VALIDATION_FAILED'],
    ];
    const before = await claimCount();
    for (const [body, status, code, what] of cases)
      assertError(await create({ email: newEmail(), ...body }), status, code, {
        what: what ?? JSON.stringify(body),
      });
    assert.equal(await claimCount(), before, 'no claim written');
    assert.equal(await activeReservation(free!.id), undefined, 'nothing reserved');
    assertError(await create({ email: newEmail(), item_id: free!.id }, member.token), 403, 'FORBIDDEN');
    assertError(await create({ email: newEmail(), item_id: free!.id }, other.token), 404, 'NOT_FOUND');
    // The ERC1155 item: 2 held would be transferred, more is minted from what is left.
    const six = await create({ email: newEmail(), item_id: multi!.id, quantity: 6 });
    assert.equal(six.statusCode, 201, six.body);
    assert.equal(six.json().quantity, 6);
  });

  it('the public view: status, item, masked email, no PIN and no delivery yet; an unknown link is 404', async () => {
    const c = await collection({ name: 'Spring drop' });
    const [item] = await items(c, 1);
    await db()
      .updateTable('items')
      .set({ attributes: JSON.stringify({ name: 'Golden ticket', image: 'https://img.test/1.png' }) })
      .where('id', '=', item!.id)
      .execute();
    const response = await create({ email: 'jane.doe@example.com', item_id: item!.id });
    assert.equal(response.statusCode, 201, response.body);
    const token = await claimTokenFromMail(env, 'jane.doe@example.com');
    const got = await client().get(token);
    assert.equal(got.statusCode, 200, got.body);
    assert.deepEqual(got.json(), {
      status: 'ACTIVE',
      expiration: response.json().expiration,
      tx_payer: 'SELLER',
      item: {
        name: 'Golden ticket',
        image: 'https://img.test/1.png',
        collection_name: 'Spring drop',
        token_id: item!.token_id,
      },
      email_hint: 'j***@example.com',
      pin: null,
      delivery: null,
      voucher: null,
    });
    const mail = (await mailsTo(env, 'jane.doe@example.com', 'REDEEM_NFT'))[0]!;
    assert.match(mail.subject, /Golden ticket/);
    assertError(await client().get('no-such-token'), 404, 'NOT_FOUND');
    assertError(await client().verify('no-such-token'), 404, 'NOT_FOUND');
    assertError(
      await client().redeem('no-such-token', { address: randomAddress(), pin: '123456' }),
      404,
      'NOT_FOUND',
    );
  });

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

  it('lists with filters, orders and pages; other organizations see nothing', async () => {
    const c = await collection();
    const [a, b, d] = await items(c, 3);
    const ids: string[] = [];
    const emails: string[] = [];
    for (const [i, item] of [a, b, d].entries()) {
      const email = newEmail();
      emails.push(email);
      const response = await create({
        email,
        item_id: item!.id,
        expiration: new Date(Date.now() + (10 - i) * 3600_000).toISOString(),
      });
      ids.push(response.json().id);
    }
    // b claimed, d revoked.
    const tokenB = await claimTokenFromMail(env, emails[1]!);
    const pinB = await pinFor(tokenB, emails[1]!);
    assert.equal((await client().redeem(tokenB, { address: randomAddress(), pin: pinB })).statusCode, 200);
    await env.call('POST', `/v1/email-claims/${ids[2]}/revoke`, { token: admin.token });

    const list = async (query: Record<string, string | string[]>, token = member.token) => {
      const response = await env.call('GET', '/v1/email-claims', { token, query });
      assert.equal(response.statusCode, 200, response.body);
      return response.json();
    };
    const idsOf = (page: { results: { id: string }[] }) => page.results.map((r) => r.id);
    assert.deepEqual(idsOf(await list({ collection_ids: c.id })), ids);
    assert.deepEqual(idsOf(await list({ item_ids: [a!.id, d!.id] })), [ids[0], ids[2]]);
    assert.deepEqual(idsOf(await list({ collection_ids: c.id, token_ids: b!.token_id! })), [ids[1]]);
    assert.deepEqual(idsOf(await list({ email: emails[0]!.toUpperCase() })), [ids[0]]);
    assert.deepEqual(idsOf(await list({ collection_ids: c.id, claimed: 'true' })), [ids[1]]);
    assert.deepEqual(idsOf(await list({ collection_ids: c.id, claimed: 'false' })), [ids[0], ids[2]]);
    assert.deepEqual(idsOf(await list({ collection_ids: c.id, active: 'false' })), [ids[2]]);
    assert.deepEqual(idsOf(await list({ collection_ids: c.id, active: 'true' })), [ids[0], ids[1]]);
    assert.deepEqual(idsOf(await list({ collection_ids: c.id, order_by: 'EXPIRATION' })), [...ids].reverse());
    assert.deepEqual(idsOf(await list({ collection_ids: c.id, order_by: 'CLAIMED_AT' })), [
      ids[1],
      ids[0],
      ids[2],
    ]);
    assert.deepEqual(
      idsOf(await list({ collection_ids: c.id, order_by: 'CLAIMED_AT', order_direction: 'DESC' })),
      [ids[2], ids[0], ids[1]],
    );
    const page = await list({ collection_ids: c.id, order_by: 'CLAIMED_AT', limit: '2' });
    assert.deepEqual([page.total_results, page.has_more], [3, true]);
    const next = await list({
      collection_ids: c.id,
      order_by: 'CLAIMED_AT',
      limit: '2',
      cursor: page.cursor,
    });
    assert.deepEqual(idsOf(next), [ids[2]]);
    const reused = await env.call('GET', '/v1/email-claims', {
      token: member.token,
      query: { collection_ids: c.id, order_by: 'EXPIRATION', limit: '2', cursor: page.cursor },
    });
    assertError(reused, 400, 'INVALID_CURSOR');
    for (const query of [{ limit: '1001' }, { order_by: 'NAME' }, { claimed: 'maybe' }] as Record<
      string,
      string
    >[])
      assertError(
        await env.call('GET', '/v1/email-claims', { token: member.token, query }),
        400,
        'VALIDATION_FAILED',
      );
    assert.equal((await list({ limit: '1000' })).results.length > 0, true);
    assert.equal((await list({ collection_ids: c.id }, other.token)).total_results, 0);
    assertError(
      await env.call('GET', `/v1/email-claims/${ids[0]}`, { token: other.token }),
      404,
      'NOT_FOUND',
    );
    assertError(
      await env.call('GET', `/v1/email-claims/${uuidv7()}`, { token: member.token }),
      404,
      'NOT_FOUND',
    );
  });

  it('Idempotency-Key on create: a retry answers the first claim, one claim and one mail', async () => {
    const c = await collection();
    const [item] = await items(c, 1);
    const email = newEmail();
    const headers = { 'idempotency-key': `claim-${uuidv7()}` };
    const first = await create({ email, item_id: item!.id }, admin.token, headers);
    const second = await create({ email, item_id: item!.id }, admin.token, headers);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(second.statusCode, 201, second.body);
    assert.deepEqual(second.json(), first.json());
    assert.equal((await mailsTo(env, email, 'REDEEM_NFT')).length, 1);
    assertError(
      await create({ email: newEmail(), item_id: item!.id }, admin.token, headers),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    );
  });

  it('a campaign of the organization goes with the claim and its mails', async () => {
    const campaignId = uuidv7();
    await db()
      .insertInto('marketing_campaigns')
      .values({
        id: campaignId,
        organization_id: organizationId,
        name: `spring-${campaignId}`,
        email_from: 'drops@brand.test',
      })
      .execute();
    // queueMail is handed the campaign (its templates and sender are the mail module's concern).
    const { claim: created } = await claim({ campaign_id: campaignId });
    assert.equal(created.campaign_id, campaignId);
    const got = await env.call('GET', `/v1/email-claims/${created.id}`, { token: member.token });
    assert.equal(got.json().campaign_id, campaignId);
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
