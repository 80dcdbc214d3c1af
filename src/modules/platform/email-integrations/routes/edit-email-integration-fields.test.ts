import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertFields } from '../../../../../test/assertions.ts';
import { setupTest, type Tenant, type TestEnv } from '../../../../../test/harness.ts';

const MAILGUN_KEY = 'key-mailgun-secret-0123456789';

/**
 * PATCH /v1/email-integrations/{id} takes the config's fields at the top level of the body, as
 * the spec says ("any parameters originally given in the config, at config level"), merged into
 * the stored config; the nested `{config: {…}}` form keeps working, and `active` stays a field of
 * its own.
 */
describe('editing an email integration with its config fields at the top level', () => {
  let env: TestEnv;
  let tenant: Tenant;
  before(async () => {
    env = await setupTest();
  });
  after(() => env?.close());

  /** A Mailgun integration of a new organization (one integration per organization). */
  const integration = async () => {
    tenant = await env.createTenant();
    const created = await env.call('POST', '/v1/email-integrations', {
      token: tenant.admin.token,
      body: {
        provider: 'API_MAIL_PROVIDER',
        config: {
          email_from: 'Acme Tokens <tokens@acme.test>',
          email_reply_to: 'support@acme.test',
          domain: 'mg.acme.test',
          api_key: MAILGUN_KEY,
          region: 'EU',
        },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    return `/v1/email-integrations/${created.json().id}`;
  };
  const patch = (url: string, body: unknown, token = tenant.admin.token) =>
    env.call('PATCH', url, { token, body });
  const secretOf = async (url: string) => {
    const row = await env.database.db
      .selectFrom('email_integrations')
      .select('secret_encrypted')
      .where('id', '=', url.split('/').at(-1)!)
      .executeTakeFirstOrThrow();
    return env.ctx.keyring.decrypt(row.secret_encrypted!);
  };

  it('merges top-level fields into the stored config, a secret included; null removes an optional one', async () => {
    const url = await integration();
    const replyTo = await patch(url, { email_reply_to: 'help@acme.test' });
    assert.equal(replyTo.statusCode, 200, replyTo.body);
    assert.deepEqual(replyTo.json().config, {
      email_from: 'Acme Tokens <tokens@acme.test>',
      email_reply_to: 'help@acme.test',
      domain: 'mg.acme.test',
      region: 'EU',
    });
    const rotated = await patch(url, { api_key: 'key-rotated' });
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.ok(!rotated.body.includes('key-rotated'));
    assert.equal(await secretOf(url), 'key-rotated');
    const removed = await patch(url, { email_reply_to: null, region: 'US' });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.deepEqual(removed.json().config, {
      email_from: 'Acme Tokens <tokens@acme.test>',
      domain: 'mg.acme.test',
      region: 'US',
    });
  });

  it('keeps the nested form, and refuses both forms at once', async () => {
    const url = await integration();
    const nested = await patch(url, { config: { email_reply_to: 'nested@acme.test' } });
    assert.equal(nested.statusCode, 200, nested.body);
    assert.equal(nested.json().config.email_reply_to, 'nested@acme.test');
    assertFields(await patch(url, { config: { region: 'US' }, domain: 'mg2.acme.test' }), ['/domain']);
    assert.equal((await env.call('GET', url, { token: tenant.admin.token })).json().config.region, 'EU');
  });

  it("refuses, at the field's own path, what the provider does not take or a field it requires removed", async () => {
    const url = await integration();
    assertFields(await patch(url, { host: 'smtp.acme.test' }), ['/host']);
    assertFields(await patch(url, { domain: null }), ['/domain']);
    assertFields(await patch(url, { region: 'MARS' }), ['/region']);
    assertFields(await patch(url, { email_from: 'x@acme.test\nBcc: y@evil.test' }), ['/email_from']);
    assertFields(await patch(url, { nonsense: true }), ['/nonsense']);
    // `active` is not a config field: an organization's admin still may not set it.
    assertError(await patch(url, { active: false }), 403, 'FORBIDDEN');
    const unchanged = (await env.call('GET', url, { token: tenant.admin.token })).json();
    assert.equal(unchanged.config.domain, 'mg.acme.test');
    assert.equal(unchanged.active, true);
  });
});
