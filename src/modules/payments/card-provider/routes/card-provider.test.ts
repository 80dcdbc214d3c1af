import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type TestEnv } from '../../../../../test/harness.ts';
import {
  createPlatformAccount,
  enableFor,
  PLATFORM_KEYS,
  platformAccountBody,
} from '../../../../../test/support/card-provider.ts';
import { type StripeStandin, startStripeStandin } from '../../../../../test/support/stripe-standin.ts';
import { createLogger } from '../../../../lib/logger.ts';

const SECRETS = [
  PLATFORM_KEYS.secretKey,
  PLATFORM_KEYS.accountWebhookSecret,
  PLATFORM_KEYS.connectWebhookSecret,
];

function assertNoSecret(body: string) {
  for (const secret of SECRETS) assert.ok(!body.includes(secret), body);
  for (const field of ['secret_key', 'webhook_endpoint_secret']) assert.ok(!body.includes(field), body);
}

describe('card provider: platform accounts, association, set-up and commands', () => {
  let env: TestEnv;
  let standin: StripeStandin;
  before(async () => {
    standin = await startStripeStandin({
      secretKeys: [PLATFORM_KEYS.secretKey],
      publishableKeys: [PLATFORM_KEYS.publishableKey],
    });
    env = await setupTest({ STRIPE_API_BASE: standin.url });
  });
  after(async () => {
    await env?.close();
    await standin?.close();
  });

  const platform = () => ({ token: env.platformAdmin.token });

  describe('platform accounts', () => {
    it('creates one with its secrets encrypted at rest and never returned', async () => {
      const body = platformAccountBody({ fee_percentage_bps: 250, config: {} });
      const response = await env.call('POST', '/v1/card-provider/platform-accounts', { ...platform(), body });
      assert.equal(response.statusCode, 201, response.body);
      const created = response.json();
      assert.deepEqual(Object.keys(created).sort(), [
        'card_provider_account_id',
        'config',
        'fee_percentage_bps',
        'id',
        'mode',
        'name',
        'publishable_key',
        'session_timeout_minutes',
      ]);
      assert.equal(created.mode, 'TEST');
      assert.equal(created.fee_percentage_bps, 250);
      assert.deepEqual(created.config, {});
      assertNoSecret(response.body);
      const row = await env.database.db
        .selectFrom('card_provider_platform_accounts')
        .selectAll()
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      for (const secret of SECRETS) assert.ok(!JSON.stringify(row).includes(secret));
      assert.equal(env.ctx.keyring.decrypt(row.secret_key_encrypted), PLATFORM_KEYS.secretKey);

      for (const url of [
        `/v1/card-provider/platform-accounts/${created.id}`,
        '/v1/card-provider/platform-accounts',
      ]) {
        const read = await env.call('GET', url, platform());
        assert.equal(read.statusCode, 200, read.body);
        assertNoSecret(read.body);
      }
    });

    it('is for platform admins only', async () => {
      const tenant = await env.createTenant();
      const id = await createPlatformAccount(env);
      for (const [method, url, body] of [
        ['GET', '/v1/card-provider/platform-accounts', undefined],
        ['POST', '/v1/card-provider/platform-accounts', platformAccountBody()],
        ['GET', `/v1/card-provider/platform-accounts/${id}`, undefined],
        ['PATCH', `/v1/card-provider/platform-accounts/${id}`, { session_timeout_minutes: 5 }],
        [
          'PATCH',
          `/v1/organizations/${tenant.organizationId}/card-provider-accounts/${id}`,
          { enabled: true },
        ],
      ] as const) {
        assertError(await env.call(method, url, { token: tenant.admin.token, body }), 403, 'FORBIDDEN', {
          what: `${method} ${url}`,
        });
        assertError(await env.call(method, url, { body }), 401, 'UNAUTHENTICATED');
      }
    });

    it('refuses bad input with a 400 naming the field, and stores nothing', async () => {
      const before = await env.database.db
        .selectFrom('card_provider_platform_accounts')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      const cases: [Record<string, unknown>, string][] = [
        [{ mode: 'SANDBOX' }, '/mode'],
        [{ publishable_key: 'pk_nope' }, '/publishable_key'],
        [{ secret_key: 'not-a-key' }, '/secret_key'],
        [{ card_provider_account_id: 'acct-1' }, '/card_provider_account_id'],
        [{ session_timeout_minutes: 0 }, '/session_timeout_minutes'],
        [{ session_timeout_minutes: 1441 }, '/session_timeout_minutes'],
        [{ session_timeout_minutes: 1.5 }, '/session_timeout_minutes'],
        [{ fee_percentage_bps: 10001 }, '/fee_percentage_bps'],
        [{ config: { anything: 1 } }, '/config'],
        [{ account_webhook_endpoint_secret: 'secret' }, '/account_webhook_endpoint_secret'],
        [{ name: '' }, '/name'],
        [{ unexpected: true }, '/unexpected'],
        [{ mode: 'LIVE' }, '/publishable_key'],
      ];
      for (const [overrides, path] of cases) {
        const response = await env.call('POST', '/v1/card-provider/platform-accounts', {
          ...platform(),
          body: platformAccountBody(overrides),
        });
        const error = assertError(response, 400, 'VALIDATION_FAILED', { what: JSON.stringify(overrides) });
        assert.ok(
          error.fields?.some((field) => field.path === path),
          `${JSON.stringify(overrides)}: ${response.body}`,
        );
        for (const secret of SECRETS) assert.ok(!response.body.includes(secret), response.body);
      }
      const { secret_key: _omitted, ...missing } = platformAccountBody();
      assertError(
        await env.call('POST', '/v1/card-provider/platform-accounts', { ...platform(), body: missing }),
        400,
        'VALIDATION_FAILED',
      );
      const afterCount = await env.database.db
        .selectFrom('card_provider_platform_accounts')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(afterCount.n, before.n);
    });

    it('refuses a name already taken with 409 ALREADY_EXISTS', async () => {
      const body = platformAccountBody();
      await env.call('POST', '/v1/card-provider/platform-accounts', { ...platform(), body });
      assertError(
        await env.call('POST', '/v1/card-provider/platform-accounts', { ...platform(), body }),
        409,
        'ALREADY_EXISTS',
      );
    });

    it('edits given fields, keeps secrets left out, removes a webhook secret given null', async () => {
      const id = await createPlatformAccount(env);
      const url = `/v1/card-provider/platform-accounts/${id}`;
      const edited = await env.call('PATCH', url, {
        ...platform(),
        body: { session_timeout_minutes: 30, connect_webhook_endpoint_secret: null, fee_percentage_bps: 100 },
      });
      assert.equal(edited.statusCode, 200, edited.body);
      assert.equal(edited.json().session_timeout_minutes, 30);
      assert.equal(edited.json().fee_percentage_bps, 100);
      assertNoSecret(edited.body);
      const row = await env.database.db
        .selectFrom('card_provider_platform_accounts')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(row.connect_webhook_endpoint_secret_encrypted, null);
      assert.notEqual(row.account_webhook_endpoint_secret_encrypted, null);
      assert.equal(env.ctx.keyring.decrypt(row.secret_key_encrypted), PLATFORM_KEYS.secretKey);

      // LIVE with test keys: refused, nothing changes.
      const refused = await env.call('PATCH', url, {
        ...platform(),
        body: { mode: 'LIVE', session_timeout_minutes: 5 },
      });
      assertError(refused, 400, 'VALIDATION_FAILED', { fields: ['/publishable_key', '/secret_key'] });
      const read = await env.call('GET', url, platform());
      assert.equal(read.json().mode, 'TEST');
      assert.equal(read.json().session_timeout_minutes, 30);

      assertError(
        await env.call('PATCH', '/v1/card-provider/platform-accounts/0190f1c0-0000-7000-8000-00000000dead', {
          ...platform(),
          body: { session_timeout_minutes: 5 },
        }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await env.call('PATCH', url, { ...platform(), body: { secret_key: 'sk_live_abc' } }),
        400,
        'VALIDATION_FAILED',
        { fields: ['/secret_key'] },
      );
    });
  });

  describe('organizations and platform accounts', () => {
    it('lists every platform account with whether the organization may use it; the platform decides', async () => {
      const tenant = await env.createTenant();
      const id = await createPlatformAccount(env);
      const url = `/v1/organizations/${tenant.organizationId}/card-provider-accounts`;
      const seen = async () => {
        const response = await env.call('GET', url, { token: tenant.member.token, query: { limit: '100' } });
        assert.equal(response.statusCode, 200, response.body);
        assertNoSecret(response.body);
        return response.json().results.find((r: { id: string }) => r.id === id);
      };
      assert.deepEqual(Object.keys(await seen()).sort(), [
        'enabled',
        'id',
        'mode',
        'name',
        'publishable_key',
      ]);
      assert.equal((await seen()).enabled, false);
      await enableFor(env, tenant.organizationId, id);
      assert.equal((await seen()).enabled, true);
      const enabledOnly = await env.call('GET', url, {
        token: tenant.admin.token,
        query: { enabled: 'true' },
      });
      assert.deepEqual(
        enabledOnly.json().results.map((r: { id: string }) => r.id),
        [id],
      );
      await enableFor(env, tenant.organizationId, id, false);
      assert.equal((await seen()).enabled, false);

      assertError(await env.call('GET', url, { token: tenant.stranger.token }), 404, 'NOT_FOUND');
      assertError(
        await env.call('PATCH', `${url}/0190f1c0-0000-7000-8000-00000000dead`, {
          ...platform(),
          body: { enabled: true },
        }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await env.call(
          'PATCH',
          `/v1/organizations/0190f1c0-0000-7000-8000-00000000dead/card-provider-accounts/${id}`,
          {
            ...platform(),
            body: { enabled: true },
          },
        ),
        404,
        'NOT_FOUND',
      );
      assertError(
        await env.call('PATCH', `${url}/${id}`, { ...platform(), body: { enabled: 'yes' } }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await env.call('PATCH', `${url}/${id}`, { ...platform(), body: {} }),
        400,
        'VALIDATION_FAILED',
      );
    });
  });

  describe('set-up and commands', () => {
    const setup = (token: string, body: Record<string, unknown>) =>
      env.call('POST', '/v1/card-provider/setup', { token, body });

    it('answers no account before set-up', async () => {
      const tenant = await env.createTenant();
      const status = await env.call('GET', '/v1/card-provider', { token: tenant.member.token });
      assert.equal(status.statusCode, 200, status.body);
      assert.deepEqual(status.json(), {
        account_id: null,
        connect_type: null,
        setup_complete: false,
        platform_card_provider_account: null,
      });
    });

    it('refuses a platform account not enabled for the organization, other connect types and bad input', async () => {
      const tenant = await env.createTenant();
      const id = await createPlatformAccount(env);
      const accountsBefore = standin.accounts.size;
      const body = { connect_type: 'STANDARD', platform_card_provider_account_id: id, return_url: null };
      assertError(await setup(tenant.admin.token, body), 422, 'CARD_PROVIDER_NOT_READY');
      await enableFor(env, tenant.organizationId, id);
      for (const connect_type of ['EXPRESS', 'CUSTOM'])
        assertError(await setup(tenant.admin.token, { ...body, connect_type }), 400, 'VALIDATION_FAILED', {
          fields: ['/connect_type'],
        });
      assertError(
        await setup(tenant.admin.token, { ...body, connect_type: 'OAUTH' }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await setup(tenant.admin.token, { ...body, return_url: 'javascript:alert(1)' }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await setup(tenant.admin.token, { ...body, platform_card_provider_account_id: 'nope' }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await setup(tenant.admin.token, {
          ...body,
          platform_card_provider_account_id: '0190f1c0-0000-7000-8000-00000000dead',
        }),
        404,
        'NOT_FOUND',
      );
      assertError(await setup(tenant.member.token, body), 403, 'FORBIDDEN');
      assert.equal(standin.accounts.size, accountsBefore, 'no account was created');
      const status = await env.call('GET', '/v1/card-provider', { token: tenant.admin.token });
      assert.equal(status.json().account_id, null);
    });

    it('creates the Standard connected account once and answers the onboarding link', async () => {
      const tenant = await env.createTenant();
      const id = await createPlatformAccount(env);
      await enableFor(env, tenant.organizationId, id);
      const body = {
        connect_type: 'STANDARD',
        platform_card_provider_account_id: id,
        return_url: 'https://org.example/settings',
      };
      const first = await setup(tenant.admin.token, body);
      assert.equal(first.statusCode, 201, first.body);
      assert.deepEqual(Object.keys(first.json()), ['url']);
      const status = await env.call('GET', '/v1/card-provider', { token: tenant.admin.token });
      const accountId = status.json().account_id as string;
      assert.match(accountId, /^acct_/);
      assert.match(first.json().url, new RegExp(`/setup/s/${accountId}/`));
      assert.deepEqual(status.json(), {
        account_id: accountId,
        connect_type: 'STANDARD',
        setup_complete: false,
        platform_card_provider_account: {
          id,
          name: status.json().platform_card_provider_account.name,
          mode: 'TEST',
          publishable_key: PLATFORM_KEYS.publishableKey,
          enabled: true,
        },
      });
      const created = standin.requests.filter((r) => r.method === 'POST' && r.path === '/v1/accounts');
      const mine = created.filter(
        (r) => (r.params.metadata as Record<string, string>)?.organization_id === tenant.organizationId,
      );
      assert.equal(mine.length, 1);
      assert.equal(mine[0]?.params.type, 'standard');
      assert.equal(mine[0]?.authorization, `Bearer ${PLATFORM_KEYS.secretKey}`);
      assert.equal(mine[0]?.stripeAccount, undefined);
      const link = standin.requests.findLast((r) => r.path === '/v1/account_links');
      assert.deepEqual(link?.params, {
        account: accountId,
        refresh_url: 'https://org.example/settings',
        return_url: 'https://org.example/settings',
        type: 'account_onboarding',
      });

      // Again: a new link for the same account, no second account.
      const second = await setup(tenant.admin.token, body);
      assert.equal(second.statusCode, 201, second.body);
      assert.notEqual(second.json().url, first.json().url);
      const again = standin.requests.filter(
        (r) =>
          r.path === '/v1/accounts' &&
          (r.params.metadata as Record<string, string>)?.organization_id === tenant.organizationId,
      );
      assert.equal(again.length, 1);

      // REFRESH reads the account's state from the provider.
      const account = standin.accounts.get(accountId);
      assert.ok(account);
      account.details_submitted = true;
      let refreshed = await env.call('POST', '/v1/card-provider/commands', {
        token: tenant.admin.token,
        body: { command: 'REFRESH' },
      });
      assert.equal(refreshed.statusCode, 201, refreshed.body);
      assert.equal(refreshed.json().setup_complete, false);
      account.charges_enabled = true;
      refreshed = await env.call('POST', '/v1/card-provider/commands', {
        token: tenant.admin.token,
        body: { command: 'REFRESH' },
      });
      assert.equal(refreshed.json().setup_complete, true);
      assert.equal(refreshed.json().account_id, accountId);

      // Another platform account while connected: DISCONNECT first.
      const other = await createPlatformAccount(env);
      await enableFor(env, tenant.organizationId, other);
      assertError(
        await setup(tenant.admin.token, { ...body, platform_card_provider_account_id: other }),
        409,
        'INVALID_STATE',
      );

      // DISCONNECT forgets it.
      assertError(
        await env.call('POST', '/v1/card-provider/commands', {
          token: tenant.member.token,
          body: { command: 'DISCONNECT' },
        }),
        403,
        'FORBIDDEN',
      );
      const disconnected = await env.call('POST', '/v1/card-provider/commands', {
        token: tenant.admin.token,
        body: { command: 'DISCONNECT' },
      });
      assert.equal(disconnected.statusCode, 201, disconnected.body);
      assert.deepEqual(disconnected.json(), {
        account_id: null,
        connect_type: null,
        setup_complete: false,
        platform_card_provider_account: null,
      });
      assertError(
        await env.call('POST', '/v1/card-provider/commands', {
          token: tenant.admin.token,
          body: { command: 'REFRESH' },
        }),
        422,
        'CARD_PROVIDER_NOT_READY',
      );
      assertError(
        await env.call('POST', '/v1/card-provider/commands', {
          token: tenant.admin.token,
          body: { command: 'RESET' },
        }),
        400,
        'VALIDATION_FAILED',
      );
    });

    it('answers 502 UPSTREAM_FAILED when the provider fails, and stores nothing', async () => {
      const tenant = await env.createTenant();
      const id = await createPlatformAccount(env);
      await enableFor(env, tenant.organizationId, id);
      standin.down = true;
      try {
        const response = await setup(tenant.admin.token, {
          connect_type: 'STANDARD',
          platform_card_provider_account_id: id,
        });
        assertError(response, 502, 'UPSTREAM_FAILED');
        assertNoSecret(response.body);
      } finally {
        standin.down = false;
      }
      const status = await env.call('GET', '/v1/card-provider', { token: tenant.admin.token });
      assert.equal(status.json().account_id, null);
    });

    it('answers 502 when the platform key is refused by the provider, without the key', async () => {
      const tenant = await env.createTenant();
      const id = await createPlatformAccount(env, { secret_key: 'sk_test_51RevokedKey000000000000' });
      await enableFor(env, tenant.organizationId, id);
      const response = await setup(tenant.admin.token, {
        connect_type: 'STANDARD',
        platform_card_provider_account_id: id,
      });
      assertError(response, 502, 'UPSTREAM_FAILED');
      assert.ok(!response.body.includes('sk_test_51RevokedKey'), response.body);
    });
  });

  it('redacts platform-account secrets, client secrets and Stripe signatures from logs', () => {
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk, _encoding, callback) {
          lines.push(String(chunk));
          callback();
        },
      }),
    );
    logger.info({ body: platformAccountBody() }, 'request');
    logger.info({ data: { client_secret: 'pi_1_secret_abc', account_id: 'acct_1' } }, 'intent');
    logger.info(
      {
        req: {
          method: 'POST',
          url: '/v1/webhooks/card-provider/x',
          headers: { 'stripe-signature': 't=1,v1=abcdef0123' },
        },
      },
      'webhook',
    );
    const text = lines.join('');
    assert.equal(lines.length, 3);
    for (const secret of [...SECRETS, 'pi_1_secret_abc', 'v1=abcdef0123'])
      assert.ok(!text.includes(secret), text);
    assert.ok(text.includes(PLATFORM_KEYS.publishableKey), 'the rest is logged');
  });
});
