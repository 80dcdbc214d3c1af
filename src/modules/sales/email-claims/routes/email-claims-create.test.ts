import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { insertCollection } from '../../../../../test/factories.ts';
import { type Actor, setupTest, type TestEnv } from '../../../../../test/harness.ts';
import { mailsTo } from '../../../../../test/support/auth.ts';
import { claimTokenFromMail } from '../../../../../test/support/email-claims.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import { sha256 } from '../../../../lib/secrets.ts';
import { emailClaimCalls, randomAddress, seedEmailClaims } from './email-claims.test-setup.ts';

/**
 * Making and reading email claims: create (what it reserves and mails, what it refuses), the
 * recipient's public view, the admin list, Idempotency-Key and campaigns (the PIN and redeem:
 * email-claims-redeem.test.ts; resend, revoke, expiry and settlement: email-claims-lifecycle.test.ts).
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

  const {
    db,
    client,
    collection,
    erc1155Collection,
    items,
    newEmail,
    create,
    claim,
    claimCount,
    activeReservation,
    pinFor,
    mintRequest,
  } = emailClaimCalls(() => ({ env, organizationId, admin }));

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
});
