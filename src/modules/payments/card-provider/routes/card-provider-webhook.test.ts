import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import {
  createPlatformAccount,
  enableFor,
  PLATFORM_KEYS,
} from '../../../../../test/support/card-provider.ts';
import {
  type StripeStandin,
  startStripeStandin,
  stripeSignature,
} from '../../../../../test/support/stripe-standin.ts';

describe('card-provider webhook: signatures, the inbox, account.updated', () => {
  let env: TestEnv;
  let standin: StripeStandin;
  let platformId: string;
  const url = (id = platformId) => `/v1/webhooks/card-provider/${id}`;
  const post = (raw: string, headers: Record<string, string>, id = platformId) =>
    env.app.inject({ method: 'POST', url: url(id), payload: raw, headers });
  const stored = (eventId: string) =>
    env.database.db.selectFrom('provider_events').selectAll().where('event_id', '=', eventId).execute();

  before(async () => {
    standin = await startStripeStandin({
      secretKeys: [PLATFORM_KEYS.secretKey],
      publishableKeys: [PLATFORM_KEYS.publishableKey],
    });
    env = await setupTest({ STRIPE_API_BASE: standin.url });
    platformId = await createPlatformAccount(env);
    standin.webhook = {
      connectSecret: PLATFORM_KEYS.connectWebhookSecret,
      accountSecret: PLATFORM_KEYS.accountWebhookSecret,
      deliver: async (raw, headers) => (await post(raw, headers)).statusCode,
    };
  });
  after(async () => {
    await env?.close();
    await standin?.close();
  });

  const eventBody = (type = 'customer.created', account?: string) =>
    JSON.stringify(
      {
        id: `evt_${Math.random().toString(36).slice(2)}`,
        object: 'event',
        type,
        ...(account && { account }),
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        data: { object: { id: 'cus_1', object: 'customer' } },
      },
      null,
      2,
    );
  const headers = (raw: string, secret: string, timestamp?: number) => ({
    'content-type': 'application/json',
    'stripe-signature': stripeSignature(raw, secret, timestamp),
  });

  it('accepts an event signed with either endpoint secret of the platform account', async () => {
    for (const secret of [PLATFORM_KEYS.accountWebhookSecret, PLATFORM_KEYS.connectWebhookSecret]) {
      const raw = eventBody();
      const response = await post(raw, headers(raw, secret));
      assert.equal(response.statusCode, 200, response.body);
      const id = JSON.parse(raw).id;
      const rows = await stored(id);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.provider, 'card-provider');
      assert.equal(rows[0]?.payload, raw, 'the raw body is kept byte for byte');
      assert.notEqual(rows[0]?.processed_at, null, 'an unknown type is acknowledged');
    }
  });

  it('refuses a bad, missing or stale signature, or a re-serialised body, with 400 and stores nothing', async () => {
    const raw = eventBody();
    const id = JSON.parse(raw).id;
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    const cases: [string, string, Record<string, string>][] = [
      ['wrong secret', raw, headers(raw, 'whsec_someoneElsesSecret')],
      ['missing header', raw, { 'content-type': 'application/json' }],
      ['garbage header', raw, { 'content-type': 'application/json', 'stripe-signature': 'nonsense' }],
      ['stale', raw, headers(raw, PLATFORM_KEYS.connectWebhookSecret, tenMinutesAgo)],
      [
        'parsed then re-serialised',
        JSON.stringify(JSON.parse(raw)),
        headers(raw, PLATFORM_KEYS.connectWebhookSecret),
      ],
      [
        'body changed',
        raw.replace('customer.created', 'account.updated'),
        headers(raw, PLATFORM_KEYS.connectWebhookSecret),
      ],
    ];
    for (const [what, body, h] of cases) {
      assertError(await post(body, h), 400, 'VALIDATION_FAILED', { what });
    }
    assert.equal((await stored(id)).length, 0);

    // The secrets of one platform account do not verify another's events.
    const other = await createPlatformAccount(env, {
      account_webhook_endpoint_secret: 'whsec_otherAccountSecret',
      connect_webhook_endpoint_secret: 'whsec_otherConnectSecret',
    });
    assertError(
      await post(raw, headers(raw, PLATFORM_KEYS.connectWebhookSecret), other),
      400,
      'VALIDATION_FAILED',
    );
    // One without webhook secrets verifies nothing.
    const bare = await createPlatformAccount(env, {
      account_webhook_endpoint_secret: null,
      connect_webhook_endpoint_secret: null,
    });
    assertError(
      await post(raw, headers(raw, PLATFORM_KEYS.connectWebhookSecret), bare),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal((await stored(id)).length, 0);

    assertError(
      await post(
        raw,
        headers(raw, PLATFORM_KEYS.connectWebhookSecret),
        '0190f1c0-0000-7000-8000-00000000dead',
      ),
      404,
      'NOT_FOUND',
    );
  });

  it('processes a replayed event once', async () => {
    const raw = eventBody();
    const id = JSON.parse(raw).id;
    const first = await post(raw, headers(raw, PLATFORM_KEYS.accountWebhookSecret));
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().duplicate, false);
    const again = await post(raw, headers(raw, PLATFORM_KEYS.accountWebhookSecret));
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().duplicate, true);
    const rows = await stored(id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.attempts, 1);
  });

  it("account.updated keeps the organization's setup_complete current; a re-delivery changes nothing", async () => {
    const tenant = await env.createTenant();
    await enableFor(env, tenant.organizationId, platformId);
    const setup = await env.call('POST', '/v1/card-provider/setup', {
      token: tenant.admin.token,
      body: { connect_type: 'STANDARD', platform_card_provider_account_id: platformId },
    });
    assert.equal(setup.statusCode, 201, setup.body);
    const status = async () =>
      (await env.call('GET', '/v1/card-provider', { token: tenant.admin.token })).json();
    const accountId = (await status()).account_id as string;
    assert.equal((await status()).setup_complete, false);

    const partly = await standin.setAccountState(accountId, { details_submitted: true });
    assert.equal(standin.events.at(-1)?.status, 200);
    assert.equal(partly.account, accountId);
    assert.equal((await status()).setup_complete, false);
    const ready = await standin.setAccountState(accountId, { charges_enabled: true });
    assert.equal((await status()).setup_complete, true);

    // An older event delivered again is a duplicate: it does not undo the newer state.
    assert.equal(await standin.resend(partly), 200);
    assert.equal((await status()).setup_complete, true);
    assert.equal((await stored(ready.id)).length, 1);

    // An account no organization has: acknowledged, nothing changes.
    const stray = await standin.emit(
      'account.updated',
      {
        id: 'acct_notOurs',
        object: 'account',
        charges_enabled: true,
        details_submitted: true,
      },
      'acct_notOurs',
    );
    assert.equal(standin.events.find((e) => e.event.id === stray.id)?.status, 200);
  });
});
