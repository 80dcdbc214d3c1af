import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { assertError, assertFields } from '../../../../../test/assertions.ts';
import { setupTest, type Tenant, type TestEnv } from '../../../../../test/harness.ts';
import { createLogger } from '../../../../lib/logger.ts';

const MAILGUN_KEY = 'key-mailgun-secret-0123456789';
const SES_SECRET = 'ses/Secret+Access0123456789abcdefghijkl';
const SMTP_PASSWORD = 'smtp-password-secret';

const mailgunConfig = (overrides: Record<string, unknown> = {}) => ({
  email_from: 'Acme Tokens <tokens@acme.test>',
  email_reply_to: 'support@acme.test',
  domain: 'mg.acme.test',
  api_key: MAILGUN_KEY,
  region: 'EU',
  ...overrides,
});
const sesConfig = (overrides: Record<string, unknown> = {}) => ({
  email_from: 'tokens@acme.test',
  region: 'eu-west-1',
  access_key_id: 'AKIAIOSFODNN7EXAMPLE',
  secret_access_key: SES_SECRET,
  ...overrides,
});
const smtpConfig = (overrides: Record<string, unknown> = {}) => ({
  email_from: '"Acme, Inc." <mail@acme.test>',
  host: 'smtp.acme.test',
  port: 587,
  username: 'mailer',
  password: SMTP_PASSWORD,
  secure: false,
  ...overrides,
});

function assertNoSecret(body: string) {
  for (const secret of [MAILGUN_KEY, SES_SECRET, SMTP_PASSWORD]) assert.ok(!body.includes(secret), body);
  for (const field of ['api_key', 'secret_access_key', 'password'])
    assert.ok(!body.includes(`"${field}"`), body);
}

describe('email integrations', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(async () => {
    await env?.close();
  });

  const create = (tenant: Tenant, provider: string, config: object, token = tenant.admin.token) =>
    env.call('POST', '/v1/email-integrations', { token, body: { provider, config } });

  it('creates an API_MAIL_PROVIDER integration, active, with its api_key stored encrypted and never returned', async () => {
    const tenant = await env.createTenant();
    const response = await create(tenant, 'API_MAIL_PROVIDER', mailgunConfig());
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json();
    assert.deepEqual(
      { ...body, id: undefined, created_at: undefined, updated_at: undefined },
      {
        id: undefined,
        organization_id: tenant.organizationId,
        provider: 'API_MAIL_PROVIDER',
        config: {
          email_from: 'Acme Tokens <tokens@acme.test>',
          email_reply_to: 'support@acme.test',
          domain: 'mg.acme.test',
          region: 'EU',
        },
        active: true,
        last_error: null,
        last_error_at: null,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    assertNoSecret(response.body);

    const got = await env.call('GET', `/v1/email-integrations/${body.id}`, { token: tenant.member.token });
    assert.equal(got.statusCode, 200, got.body);
    assert.deepEqual(got.json(), body);
    assertNoSecret(got.body);

    const row = await env.database.db
      .selectFrom('email_integrations')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row.config).includes(MAILGUN_KEY));
    assert.ok(row.secret_encrypted && !row.secret_encrypted.includes(MAILGUN_KEY));
    assert.equal(env.ctx.keyring.decrypt(row.secret_encrypted), MAILGUN_KEY);
  });

  it('creates CLOUD_MAIL_PROVIDER active (access_key_id returned) and CUSTOM_SMTP inactive', async () => {
    const cloud = await create(await env.createTenant(), 'CLOUD_MAIL_PROVIDER', sesConfig());
    assert.equal(cloud.statusCode, 201, cloud.body);
    assert.equal(cloud.json().active, true);
    assert.equal(cloud.json().config.access_key_id, 'AKIAIOSFODNN7EXAMPLE');
    assert.equal(cloud.json().config.region, 'eu-west-1');
    assertNoSecret(cloud.body);

    const smtp = await create(await env.createTenant(), 'CUSTOM_SMTP', smtpConfig());
    assert.equal(smtp.statusCode, 201, smtp.body);
    assert.equal(smtp.json().active, false);
    assert.deepEqual(smtp.json().config, {
      email_from: '"Acme, Inc." <mail@acme.test>',
      host: 'smtp.acme.test',
      port: 587,
      username: 'mailer',
      secure: false,
    });
    assertNoSecret(smtp.body);
  });

  it('allows one integration per organization: 409 EMAIL_INTEGRATION_EXISTS, also for concurrent creates', async () => {
    const tenant = await env.createTenant();
    assert.equal((await create(tenant, 'API_MAIL_PROVIDER', mailgunConfig())).statusCode, 201);
    assertError(await create(tenant, 'CLOUD_MAIL_PROVIDER', sesConfig()), 409, 'EMAIL_INTEGRATION_EXISTS');

    const racing = await env.createTenant();
    const answers = await Promise.all([
      create(racing, 'API_MAIL_PROVIDER', mailgunConfig()),
      create(racing, 'CLOUD_MAIL_PROVIDER', sesConfig()),
      create(racing, 'CUSTOM_SMTP', smtpConfig()),
    ]);
    const statuses = answers.map((a) => a.statusCode).sort();
    assert.deepEqual(statuses, [201, 409, 409], answers.map((a) => a.body).join('\n'));
    for (const answer of answers.filter((a) => a.statusCode === 409))
      assertError(answer, 409, 'EMAIL_INTEGRATION_EXISTS');
  });

  it('refuses bad configs with the fields at fault (400)', async () => {
    const tenant = await env.createTenant();
    const cases: [string, object, string[]][] = [
      ['API_MAIL_PROVIDER', mailgunConfig({ region: 'ASIA' }), ['/config/region']],
      ['API_MAIL_PROVIDER', mailgunConfig({ domain: undefined }), ['/config/domain']],
      ['API_MAIL_PROVIDER', mailgunConfig({ sender: 'x' }), ['/config/sender']],
      ['API_MAIL_PROVIDER', mailgunConfig({ email_from: 'not an address' }), ['/config/email_from']],
      // Header injection: a line break would start a new header (Bcc) in every mail.
      [
        'API_MAIL_PROVIDER',
        mailgunConfig({ email_from: 'a@acme.test\r\nBcc: all@evil.test' }),
        ['/config/email_from'],
      ],
      ['API_MAIL_PROVIDER', mailgunConfig({ email_from: 'Acme\n <a@acme.test>' }), ['/config/email_from']],
      [
        'API_MAIL_PROVIDER',
        mailgunConfig({ email_reply_to: 'Bob <bob@acme.test>, eve@evil.test' }),
        ['/config/email_reply_to'],
      ],
      ['CLOUD_MAIL_PROVIDER', sesConfig({ region: 'Mars' }), ['/config/region']],
      ['CLOUD_MAIL_PROVIDER', sesConfig({ access_key_id: 'akia lower' }), ['/config/access_key_id']],
      ['CLOUD_MAIL_PROVIDER', sesConfig({ domain: 'mg.acme.test' }), ['/config/domain']],
      ['CUSTOM_SMTP', smtpConfig({ port: 0 }), ['/config/port']],
      ['CUSTOM_SMTP', smtpConfig({ host: 'smtp.acme.test\r\n' }), ['/config/host']],
      ['CUSTOM_SMTP', smtpConfig({ secure: 'yes' }), ['/config/secure']],
      ['CUSTOM_SMTP', smtpConfig({ username: undefined }), ['/config/username']],
    ];
    for (const [provider, config, fields] of cases) {
      const response = await create(tenant, provider, JSON.parse(JSON.stringify(config)));
      assertFields(response, fields);
    }
    const unknownProvider = assertError(
      await create(tenant, 'SENDGRID', mailgunConfig()),
      400,
      'VALIDATION_FAILED',
    );
    assert.ok(
      unknownProvider.fields?.every((f) => f.path === '/provider'),
      JSON.stringify(unknownProvider),
    );
    const extra = await env.call('POST', '/v1/email-integrations', {
      token: tenant.admin.token,
      body: { provider: 'API_MAIL_PROVIDER', config: mailgunConfig(), active: true },
    });
    assertError(extra, 400, 'VALIDATION_FAILED');
    // Nothing was created by the refusals.
    const list = await env.call('GET', '/v1/email-integrations', { token: tenant.admin.token });
    assert.equal(list.json().total_results, 0);
  });

  it('accepts a bare address, <address> and a quoted display name', async () => {
    for (const email_from of ['tokens@acme.test', '<tokens@acme.test>', '"Acme, Inc." <tokens@acme.test>']) {
      const response = await create(
        await env.createTenant(),
        'API_MAIL_PROVIDER',
        mailgunConfig({ email_from }),
      );
      assert.equal(response.statusCode, 201, response.body);
    }
  });

  it('merges PATCH config fields, keeps the secret unless given, refuses a provider change', async () => {
    const tenant = await env.createTenant();
    const created = (await create(tenant, 'API_MAIL_PROVIDER', mailgunConfig())).json();
    const url = `/v1/email-integrations/${created.id}`;
    const patched = await env.call('PATCH', url, {
      token: tenant.admin.token,
      body: { config: { email_reply_to: null, region: 'US', email_from: 'Acme <hello@acme.test>' } },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(patched.json().config, {
      email_from: 'Acme <hello@acme.test>',
      domain: 'mg.acme.test',
      region: 'US',
    });
    assert.ok(patched.json().updated_at > created.updated_at);
    assertNoSecret(patched.body);
    const secretOf = async () =>
      env.ctx.keyring.decrypt(
        (
          await env.database.db
            .selectFrom('email_integrations')
            .select('secret_encrypted')
            .where('id', '=', created.id)
            .executeTakeFirstOrThrow()
        ).secret_encrypted ?? '',
      );
    assert.equal(await secretOf(), MAILGUN_KEY);

    const rotated = await env.call('PATCH', url, {
      token: tenant.admin.token,
      body: { config: { api_key: 'key-new' } },
    });
    assert.equal(rotated.statusCode, 200, rotated.body);
    assertNoSecret(rotated.body);
    assert.equal(await secretOf(), 'key-new');

    assertError(
      await env.call('PATCH', url, { token: tenant.admin.token, body: { provider: 'CUSTOM_SMTP' } }),
      400,
      'VALIDATION_FAILED',
    );
    assertFields(
      await env.call('PATCH', url, {
        token: tenant.admin.token,
        body: { config: { provider: 'CUSTOM_SMTP' } },
      }),
      ['/config/provider'],
    );
    assertFields(
      await env.call('PATCH', url, { token: tenant.admin.token, body: { config: { domain: null } } }),
      ['/config/domain'],
    );
    assertFields(
      await env.call('PATCH', url, {
        token: tenant.admin.token,
        body: { config: { email_from: 'x@acme.test\nBcc: y@evil.test' } },
      }),
      ['/config/email_from'],
    );
  });

  it("lets only a platform admin set active: 403 for the organization's admin, CUSTOM_SMTP activated by the platform", async () => {
    const tenant = await env.createTenant();
    const created = (await create(tenant, 'CUSTOM_SMTP', smtpConfig())).json();
    const url = `/v1/email-integrations/${created.id}`;
    for (const active of [true, false]) {
      assertError(
        await env.call('PATCH', url, { token: tenant.admin.token, body: { active } }),
        403,
        'FORBIDDEN',
      );
    }
    const activated = await env.call('PATCH', url, {
      token: env.platformAdmin.token,
      body: { active: true },
    });
    assert.equal(activated.statusCode, 200, activated.body);
    assert.equal(activated.json().active, true);
    assert.equal(activated.json().config.host, 'smtp.acme.test');
    // The organization still edits its login and sender; the activation stays.
    const edited = await env.call('PATCH', url, {
      token: tenant.admin.token,
      body: { config: { username: 'other', password: 'another-password', email_from: 'new@acme.test' } },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    assert.equal(edited.json().active, true);
    assert.equal(edited.json().config.username, 'other');
  });

  it('makes a CUSTOM_SMTP integration inactive again when its organization moves it to another server', async () => {
    const tenant = await env.createTenant();
    const created = (await create(tenant, 'CUSTOM_SMTP', smtpConfig())).json();
    const url = `/v1/email-integrations/${created.id}`;
    const activate = () => env.call('PATCH', url, { token: env.platformAdmin.token, body: { active: true } });
    for (const config of [{ port: 2525 }, { host: 'mail.elsewhere.test' }, { secure: true }]) {
      assert.equal((await activate()).json().active, true);
      const moved = await env.call('PATCH', url, { token: tenant.admin.token, body: { config } });
      assert.equal(moved.statusCode, 200, moved.body);
      assert.equal(moved.json().active, false, JSON.stringify(config));
      assertError(
        await env.call('POST', `${url}/test`, { token: tenant.admin.token, body: { to: 'x@example.test' } }),
        403,
        'FORBIDDEN',
      );
    }
    // The platform may move it and keep it active.
    assert.equal((await activate()).json().active, true);
    const byPlatform = await env.call('PATCH', url, {
      token: env.platformAdmin.token,
      body: { config: { port: 465, secure: true } },
    });
    assert.equal(byPlatform.json().active, true);
  });

  it('lists with the provider filter and list parameters; an organization sees only its own; no secrets', async () => {
    const first = await env.createTenant();
    const second = await env.createTenant();
    const a = (await create(first, 'API_MAIL_PROVIDER', mailgunConfig())).json();
    const b = (await create(second, 'CUSTOM_SMTP', smtpConfig())).json();

    const own = await env.call('GET', '/v1/email-integrations', { token: first.admin.token });
    assert.equal(own.statusCode, 200, own.body);
    assert.deepEqual(own.json(), { results: [a], cursor: null, has_more: false, total_results: 1 });

    const all = await env.call('GET', '/v1/email-integrations', {
      token: env.platformAdmin.token,
      query: { provider: 'CUSTOM_SMTP', limit: '100' },
    });
    assert.equal(all.statusCode, 200, all.body);
    const results = all.json().results as { id: string; provider: string }[];
    assert.ok(results.some((r) => r.id === b.id));
    assert.ok(results.every((r) => r.provider === 'CUSTOM_SMTP'));
    assertNoSecret(all.body);

    const byOrganization = await env.call('GET', '/v1/email-integrations', {
      token: env.platformAdmin.token,
      query: { organization_id: first.organizationId },
    });
    assert.deepEqual(byOrganization.json().results, [a]);
    const strangers = await env.call('GET', '/v1/email-integrations', {
      token: first.admin.token,
      query: { organization_id: second.organizationId },
    });
    assert.equal(strangers.json().total_results, 0);
    const none = await env.call('GET', '/v1/email-integrations', {
      token: first.admin.token,
      query: { provider: 'CUSTOM_SMTP' },
    });
    assert.equal(none.json().total_results, 0);

    const paged = await env.call('GET', '/v1/email-integrations', {
      token: env.platformAdmin.token,
      query: { limit: '1' },
    });
    assert.equal(paged.json().results.length, 1);
    assert.equal(paged.json().has_more, true);
    const badFilter = assertError(
      await env.call('GET', '/v1/email-integrations', { token: first.admin.token, query: { provider: 'X' } }),
      400,
      'VALIDATION_FAILED',
    );
    assert.ok(
      badFilter.fields?.every((f) => f.path === 'querystring:/provider'),
      JSON.stringify(badFilter),
    );
    assertError(
      await env.call('GET', '/v1/email-integrations', {
        token: env.platformAdmin.token,
        query: { limit: '1', provider: 'API_MAIL_PROVIDER', cursor: paged.json().cursor },
      }),
      400,
      'INVALID_CURSOR',
    );
  });

  it("answers 404 for another organization's integration", async () => {
    const tenant = await env.createTenant();
    const created = (await create(tenant, 'API_MAIL_PROVIDER', mailgunConfig())).json();
    const url = `/v1/email-integrations/${created.id}`;
    const token = tenant.stranger.token;
    assertError(await env.call('GET', url, { token }), 404, 'NOT_FOUND');
    assertError(
      await env.call('PATCH', url, { token, body: { config: { region: 'US' } } }),
      404,
      'NOT_FOUND',
    );
    assertError(await env.call('DELETE', url, { token }), 404, 'NOT_FOUND');
    assertError(
      await env.call('POST', `${url}/test`, { token, body: { to: 'someone@example.test' } }),
      404,
      'NOT_FOUND',
    );
    assert.equal((await env.call('GET', url, { token: tenant.admin.token })).statusCode, 200);
  });

  it('lets a platform admin create, read and delete for any organization; an organization admin only for its own', async () => {
    const tenant = await env.createTenant();
    const forbidden = await env.call('POST', '/v1/email-integrations', {
      token: tenant.stranger.token,
      body: {
        provider: 'API_MAIL_PROVIDER',
        config: mailgunConfig(),
        organization_id: tenant.organizationId,
      },
    });
    assertError(forbidden, 403, 'FORBIDDEN');
    const created = await env.call('POST', '/v1/email-integrations', {
      token: env.platformAdmin.token,
      body: { provider: 'CUSTOM_SMTP', config: smtpConfig(), organization_id: tenant.organizationId },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().organization_id, tenant.organizationId);
    const url = `/v1/email-integrations/${created.json().id}`;
    assert.equal((await env.call('GET', url, { token: env.platformAdmin.token })).statusCode, 200);
    assertError(
      await env.call('POST', '/v1/email-integrations', {
        token: env.platformAdmin.token,
        body: {
          provider: 'CUSTOM_SMTP',
          config: smtpConfig(),
          organization_id: '0190f1c0-0000-7000-8000-00000000dead',
        },
      }),
      404,
      'NOT_FOUND',
    );
    assert.equal((await env.call('DELETE', url, { token: env.platformAdmin.token })).statusCode, 204);
  });

  it('deletes an integration (204), after which it is gone and another may be created', async () => {
    const tenant = await env.createTenant();
    const created = (await create(tenant, 'API_MAIL_PROVIDER', mailgunConfig())).json();
    const url = `/v1/email-integrations/${created.id}`;
    assertError(await env.call('DELETE', url, { token: tenant.member.token }), 403, 'FORBIDDEN');
    const deleted = await env.call('DELETE', url, { token: tenant.admin.token });
    assert.equal(deleted.statusCode, 204, deleted.body);
    assertError(await env.call('GET', url, { token: tenant.admin.token }), 404, 'NOT_FOUND');
    assertError(await env.call('DELETE', url, { token: tenant.admin.token }), 404, 'NOT_FOUND');
    assert.equal((await create(tenant, 'CLOUD_MAIL_PROVIDER', sesConfig())).statusCode, 201);
  });

  it('redacts integration secrets from logs wherever a config appears', () => {
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
    logger.info({ body: { provider: 'API_MAIL_PROVIDER', config: mailgunConfig() } }, 'request');
    logger.info({ body: { config: sesConfig() } }, 'request');
    logger.info({ config: smtpConfig() }, 'integration');
    const text = lines.join('');
    assert.equal(lines.length, 3);
    assertNoSecretValues(text);
    assert.ok(text.includes('mg.acme.test'), 'the rest of the config is logged');
  });
});

function assertNoSecretValues(text: string) {
  for (const secret of [MAILGUN_KEY, SES_SECRET, SMTP_PASSWORD]) assert.ok(!text.includes(secret), text);
}
