import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { MailOutboxRow } from '../src/db/schema.ts';
import { queueMail } from '../src/modules/platform/mail/mail.service.ts';
import { deliverOutboxMail } from '../src/modules/platform/mail/mail-delivery.service.ts';
import { buildWorker, type Worker } from '../src/worker.ts';
import { assertError } from './assertions.ts';
import { setupTest, type Tenant, type TestEnv } from './harness.ts';
import {
  makeCertificate,
  startMailgunStandIn,
  startSesStandIn,
  startSmtpServer,
} from './support/mail-providers.ts';
import { waitFor } from './support/wait.ts';

/**
 * Which transport sends what (docs/api.md#which-transport-sends-what): an organization's mail goes
 * through its active integration (Mailgun, SES, its SMTP server), reached by the real clients at
 * local stand-ins; else through the platform's transport (here the local mailbox).
 */

const MAILGUN_KEY = 'key-0123456789abcdef';
const ROTATED_KEY = 'key-rotated-fedcba9876';
const AWS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const SMTP_LOGIN = { username: 'mailer', password: 'smtp-secret-password' };

let counter = 0;
const uniqueEmail = (label: string) => `${label}-${++counter}-${Date.now().toString(36)}@example.test`;

describe('mail through organizations’ email integrations', () => {
  const certificate = makeCertificate();
  let startTls: Awaited<ReturnType<typeof startSmtpServer>>;
  let implicitTls: Awaited<ReturnType<typeof startSmtpServer>>;
  let mailgun: Awaited<ReturnType<typeof startMailgunStandIn>>;
  let ses: Awaited<ReturnType<typeof startSesStandIn>>;
  let env: TestEnv;
  let worker: Worker;

  before(async () => {
    startTls = await startSmtpServer({ tls: certificate, secure: false, login: SMTP_LOGIN });
    implicitTls = await startSmtpServer({ tls: certificate, secure: true, login: SMTP_LOGIN });
    mailgun = await startMailgunStandIn(() => [MAILGUN_KEY, ROTATED_KEY]);
    ses = await startSesStandIn({ [AWS_KEY_ID]: AWS_SECRET });
    env = await setupTest({
      MAILGUN_API_BASE: mailgun.url,
      SES_ENDPOINT: ses.url,
      // The test servers' self-signed certificate, trusted like a private CA; verification stays on.
      SMTP_TLS_CA_FILE: certificate.certFile,
    });
    worker = await buildWorker(env.ctx, env.database, { pollIntervalMs: 100 });
  });
  after(async () => {
    await worker?.stop();
    await env?.close();
    await Promise.all([startTls?.close(), implicitTls?.close(), mailgun?.close(), ses?.close()]);
    certificate.remove();
  });

  async function integrate(tenant: Tenant, provider: string, config: object): Promise<string> {
    const response = await env.call('POST', '/v1/email-integrations', {
      token: tenant.admin.token,
      body: { provider, config },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().id;
  }
  const mailgunConfig = (overrides: object = {}) => ({
    email_from: 'Acme Tokens <tokens@acme.test>',
    email_reply_to: 'Acme Support <support@acme.test>',
    domain: 'mg.acme.test',
    api_key: MAILGUN_KEY,
    region: 'EU',
    ...overrides,
  });
  const sesConfig = (overrides: object = {}) => ({
    email_from: 'Acme Cloud <cloud@acme.test>',
    email_reply_to: 'help@acme.test',
    region: 'eu-west-1',
    access_key_id: AWS_KEY_ID,
    secret_access_key: AWS_SECRET,
    ...overrides,
  });
  const smtpConfig = (port: number, secure: boolean, overrides: object = {}) => ({
    email_from: '"Acme, Inc." <smtp@acme.test>',
    email_reply_to: 'replies@acme.test',
    host: '127.0.0.1',
    port,
    secure,
    ...SMTP_LOGIN,
    ...overrides,
  });
  const testSend = (tenant: Tenant, id: string, to: string, token = tenant.admin.token) =>
    env.call('POST', `/v1/email-integrations/${id}/test`, { token, body: { to } });
  const integration = (id: string) =>
    env.database.db
      .selectFrom('email_integrations')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const outboxTo = (to: string) =>
    env.database.db.selectFrom('mail_outbox').selectAll().where('to_address', '=', to).executeTakeFirst();
  const waitForOutbox = (to: string, status: MailOutboxRow['status']) =>
    waitFor(`the mail to ${to} to be ${status}`, async () => {
      const row = await outboxTo(to);
      return row?.status === status ? row : undefined;
    });
  const organizationName = async (id: string) =>
    (
      await env.database.db
        .selectFrom('organizations')
        .select('name')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).name;

  /** An outbox message of the organization whose job is removed: the test plays the deliveries. */
  function queueWithoutJob(
    organizationId: string,
    to: string,
    sender: string | null = null,
  ): Promise<string> {
    return env.database.db.transaction().execute(async (tx) => {
      const id = await queueMail(tx, {
        organizationId,
        templateType: 'USER_TEST',
        to,
        variables: { organization_name: 'Acme' },
      });
      await sql`SELECT graphile_worker.remove_job(${`mail:${id}`})`.execute(tx);
      if (sender !== null) await tx.updateTable('mail_outbox').set({ sender }).where('id', '=', id).execute();
      return id;
    });
  }
  const jobsOf = async (outboxId: string) =>
    (
      await sql<{
        count: string;
      }>`SELECT count(*) AS count FROM graphile_worker.jobs WHERE key = ${`mail:${outboxId}`}`.execute(
        env.database.db,
      )
    ).rows[0]?.count;

  it('test-sends over SMTP with STARTTLS and a login, the message composed once with names, Reply-To, both parts and the Message-ID', async () => {
    const tenant = await env.createTenant();
    // Not active yet (CUSTOM_SMTP waits for the platform): the platform tries the server first.
    const id = await integrate(tenant, 'CUSTOM_SMTP', smtpConfig(startTls.port, false));
    const to = uniqueEmail('smtp-test');
    assertError(await testSend(tenant, id, to), 403, 'FORBIDDEN');
    assert.equal(startTls.receivedBy(to).length, 0);
    const response = await testSend(tenant, id, to, env.platformAdmin.token);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { delivered: true });

    const [mail, ...others] = startTls.receivedBy(to);
    assert.ok(mail, 'the SMTP server received nothing');
    assert.equal(others.length, 0);
    assert.equal(mail.secure, true, 'the session was upgraded with STARTTLS before the login');
    assert.equal(mail.user, 'mailer');
    assert.equal(mail.envelopeFrom, 'smtp@acme.test');
    assert.deepEqual(mail.parsed.from?.value, [{ name: 'Acme, Inc.', address: 'smtp@acme.test' }]);
    assert.deepEqual(mail.parsed.replyTo?.value, [{ name: '', address: 'replies@acme.test' }]);
    assert.equal(mail.parsed.subject, `Test mail from ${await organizationName(tenant.organizationId)}`);
    assert.match(String(mail.parsed.html), /<strong>.*<\/strong>/);
    assert.match(String(mail.parsed.text), /This is a test mail from /);
    assert.match(String(mail.parsed.messageId), /^<[0-9a-f-]{36}@token-issuance-service>$/);
  });

  it("test-sends the organization's own USER_TEST template when it has one", async () => {
    const tenant = await env.createTenant();
    const id = await integrate(tenant, 'CUSTOM_SMTP', smtpConfig(startTls.port, false));
    const template = await env.call('POST', '/v1/email-templates/USER_TEST', {
      token: tenant.admin.token,
      body: { subject: 'Mail check for {{organization_name}}', html: '<p>Our own test mail.</p>' },
    });
    assert.equal(template.statusCode, 201, template.body);
    const to = uniqueEmail('smtp-own-template');
    const response = await testSend(tenant, id, to, env.platformAdmin.token);
    assert.equal(response.statusCode, 200, response.body);
    const [mail] = startTls.receivedBy(to);
    assert.ok(mail, 'the SMTP server received nothing');
    assert.equal(mail.parsed.subject, `Mail check for ${await organizationName(tenant.organizationId)}`);
    assert.match(String(mail.parsed.text), /Our own test mail\./);
  });

  it('test-sends over SMTP with implicit TLS (secure)', async () => {
    const tenant = await env.createTenant();
    const id = await integrate(tenant, 'CUSTOM_SMTP', smtpConfig(implicitTls.port, true));
    const to = uniqueEmail('smtps-test');
    const response = await testSend(tenant, id, to, env.platformAdmin.token);
    assert.equal(response.statusCode, 200, response.body);
    const [mail] = implicitTls.receivedBy(to);
    assert.equal(mail?.secure, true);
    assert.equal(mail?.parsed.from?.value[0]?.name, 'Acme, Inc.');
  });

  it('answers 502 UPSTREAM_FAILED with the SMTP server’s reason, kept as last_error without the password', async () => {
    const tenant = await env.createTenant();
    const id = await integrate(
      tenant,
      'CUSTOM_SMTP',
      smtpConfig(startTls.port, false, { password: 'wrong-password' }),
    );
    const error = assertError(
      await testSend(tenant, id, uniqueEmail('smtp-denied'), env.platformAdmin.token),
      502,
      'UPSTREAM_FAILED',
    );
    assert.match(error.detail, /535|Invalid username or password/);
    assert.ok(!error.detail.includes('wrong-password'));
    const row = await integration(id);
    assert.match(row.last_error ?? '', /535|Invalid username or password/);
    assert.ok(!(row.last_error ?? '').includes('wrong-password'));
    assert.ok(row.last_error_at instanceof Date);
    const got = await env.call('GET', `/v1/email-integrations/${id}`, { token: tenant.admin.token });
    assert.match(got.json().last_error, /535|Invalid username or password/);
  });

  it('test-sends through Mailgun’s MIME endpoint with api:<key>, `to` and the message as a file', async () => {
    const tenant = await env.createTenant();
    const id = await integrate(tenant, 'API_MAIL_PROVIDER', mailgunConfig());
    const to = uniqueEmail('mailgun-test');
    const response = await testSend(tenant, id, to);
    assert.equal(response.statusCode, 200, response.body);
    const request = mailgun.requests.find((r) => r.to.includes(to));
    assert.ok(request, 'Mailgun received nothing');
    assert.equal(request.domain, 'mg.acme.test');
    assert.equal(request.credentials, `api:${MAILGUN_KEY}`);
    assert.match(request.contentType, /^multipart\/form-data; boundary=/);
    assert.deepEqual(request.to, [to]);
    assert.equal(request.messageFilename, 'MimeMessage');
    assert.deepEqual(request.parsed.from?.value, [{ name: 'Acme Tokens', address: 'tokens@acme.test' }]);
    assert.deepEqual(request.parsed.replyTo?.value, [{ name: 'Acme Support', address: 'support@acme.test' }]);
    assert.equal(
      request.parsed.to && 'value' in request.parsed.to ? request.parsed.to.value[0]?.address : '',
      to,
    );
    assert.ok(request.parsed.html && request.parsed.text);
    assert.match(String(request.parsed.messageId), /@token-issuance-service>$/);
  });

  it('answers 502 with Mailgun’s refusal (a wrong key: 401) and records it, without the key', async () => {
    const tenant = await env.createTenant();
    const id = await integrate(tenant, 'API_MAIL_PROVIDER', mailgunConfig({ api_key: 'key-wrong-one' }));
    const error = assertError(
      await testSend(tenant, id, uniqueEmail('mailgun-denied')),
      502,
      'UPSTREAM_FAILED',
    );
    assert.match(error.detail, /401/);
    const row = await integration(id);
    assert.match(row.last_error ?? '', /Mailgun answered 401/);
    assert.ok(!(row.last_error ?? '').includes('key-wrong-one'));
  });

  it('test-sends through SES v2 with Content.Raw, signed (SigV4) for the key and region of the integration', async () => {
    const tenant = await env.createTenant();
    const id = await integrate(tenant, 'CLOUD_MAIL_PROVIDER', sesConfig());
    const to = uniqueEmail('ses-test');
    const response = await testSend(tenant, id, to);
    assert.equal(response.statusCode, 200, response.body);
    const request = ses.requests.find((r) => r.body.Destination?.ToAddresses?.includes(to));
    assert.ok(request, 'SES received nothing');
    assert.equal(request.signatureValid, true);
    assert.equal(request.accessKeyId, AWS_KEY_ID);
    assert.equal(request.region, 'eu-west-1');
    assert.equal(request.service, 'ses');
    assert.equal(request.body.FromEmailAddress, 'cloud@acme.test');
    assert.deepEqual(request.parsed.from?.value, [{ name: 'Acme Cloud', address: 'cloud@acme.test' }]);
    assert.deepEqual(request.parsed.replyTo?.value, [{ name: '', address: 'help@acme.test' }]);
    assert.ok(request.parsed.html && request.parsed.text);
  });

  it('answers 502 with SES’s refusal, and a wrong secret key fails its signature check', async () => {
    const tenant = await env.createTenant();
    const id = await integrate(tenant, 'CLOUD_MAIL_PROVIDER', sesConfig());
    ses.answerNext(400, 'MessageRejected', 'Email address is not verified.');
    const rejected = assertError(
      await testSend(tenant, id, uniqueEmail('ses-denied')),
      502,
      'UPSTREAM_FAILED',
    );
    assert.match(rejected.detail, /MessageRejected: Email address is not verified/);

    const other = await env.createTenant();
    const badId = await integrate(
      other,
      'CLOUD_MAIL_PROVIDER',
      sesConfig({ secret_access_key: 'not-the-secret' }),
    );
    const unsigned = assertError(
      await testSend(other, badId, uniqueEmail('ses-unsigned')),
      502,
      'UPSTREAM_FAILED',
    );
    assert.match(unsigned.detail, /403/);
  });

  it("sends an organization's mail (a password reset of its user) through its integration", async () => {
    const tenant = await env.createTenant();
    await integrate(tenant, 'API_MAIL_PROVIDER', mailgunConfig());
    const email = tenant.member.user.email;
    const reset = await env.call('POST', '/v1/auth/forgot-password', { body: { email } });
    assert.equal(reset.statusCode, 204, reset.body);
    const row = await waitForOutbox(email, 'SENT');
    assert.equal(row.organization_id, tenant.organizationId);
    assert.equal(row.transport, 'mailgun');
    const request = mailgun.requests.find((r) => r.to.includes(email));
    assert.ok(request);
    assert.equal(request.parsed.messageId, `<${row.id}@token-issuance-service>`);
    assert.deepEqual(request.parsed.from?.value, [{ name: 'Acme Tokens', address: 'tokens@acme.test' }]);
    assert.deepEqual(request.parsed.replyTo?.value, [{ name: 'Acme Support', address: 'support@acme.test' }]);
    assert.equal(request.parsed.subject, row.subject);
  });

  it("sends a campaign's mail from its email_from: a display name before the integration's address, or its own mailbox", async () => {
    const tenant = await env.createTenant();
    await integrate(tenant, 'CLOUD_MAIL_PROVIDER', sesConfig());
    const named = uniqueEmail('campaign-name');
    const namedId = await queueWithoutJob(tenant.organizationId, named, 'Acme via Tokens');
    assert.equal(await deliverOutboxMail(env.database.db, env.ctx, namedId, { number: 1, max: 10 }), 'sent');
    const full = uniqueEmail('campaign-full');
    const fullId = await queueWithoutJob(tenant.organizationId, full, 'Promo Team <promo@acme.test>');
    assert.equal(await deliverOutboxMail(env.database.db, env.ctx, fullId, { number: 1, max: 10 }), 'sent');

    const fromOf = (to: string) =>
      ses.requests.find((r) => r.body.Destination?.ToAddresses?.includes(to))?.parsed.from?.value;
    assert.deepEqual(fromOf(named), [{ name: 'Acme via Tokens', address: 'cloud@acme.test' }]);
    assert.deepEqual(fromOf(full), [{ name: 'Promo Team', address: 'promo@acme.test' }]);
  });

  it('records a permanent refusal (Mailgun 400) as FAILED at once, not retried, and on the integration', async () => {
    const tenant = await env.createTenant();
    const integrationId = await integrate(tenant, 'API_MAIL_PROVIDER', mailgunConfig());
    mailgun.answerNext(400, { message: "'to' parameter is not a valid address. please check documentation" });
    const email = tenant.member.user.email;
    assert.equal((await env.call('POST', '/v1/auth/forgot-password', { body: { email } })).statusCode, 204);

    const row = await waitForOutbox(email, 'FAILED');
    assert.equal(row.attempts, 1);
    assert.equal(row.send_count, 1);
    assert.match(row.last_error ?? '', /Mailgun answered 400: .*'to' parameter is not a valid address/);
    await waitFor('the job to be done', async () => ((await jobsOf(row.id)) === '0' ? true : undefined));
    assert.equal(mailgun.requests.filter((r) => r.to.includes(email)).length, 0);
    const failed = await integration(integrationId);
    assert.match(failed.last_error ?? '', /Mailgun answered 400/);
    assert.ok(failed.last_error_at instanceof Date);
  });

  it('refuses for good on an SMTP 5xx reply, retries an SMTP 4xx', async () => {
    const tenant = await env.createTenant();
    const id = await integrate(tenant, 'CUSTOM_SMTP', smtpConfig(startTls.port, false));
    const activated = await env.call('PATCH', `/v1/email-integrations/${id}`, {
      token: env.platformAdmin.token,
      body: { active: true },
    });
    assert.equal(activated.statusCode, 200, activated.body);

    const refused = uniqueEmail('smtp-550');
    const refusedId = await queueWithoutJob(tenant.organizationId, refused);
    startTls.failNext(550, 'mailbox unavailable');
    assert.equal(
      await deliverOutboxMail(env.database.db, env.ctx, refusedId, { number: 1, max: 10 }),
      'rejected',
    );
    const refusedRow = await outboxTo(refused);
    assert.equal(refusedRow?.status, 'FAILED');
    assert.match(refusedRow?.last_error ?? '', /550|mailbox unavailable/);

    const busy = uniqueEmail('smtp-451');
    const busyId = await queueWithoutJob(tenant.organizationId, busy);
    startTls.failNext(451, 'try again later');
    await assert.rejects(
      deliverOutboxMail(env.database.db, env.ctx, busyId, { number: 1, max: 10 }),
      /451|try again/,
    );
    assert.equal((await outboxTo(busy))?.status, 'PENDING');
    assert.equal(await deliverOutboxMail(env.database.db, env.ctx, busyId, { number: 2, max: 10 }), 'sent');
    assert.equal(startTls.receivedBy(busy).length, 1);
  });

  it('retries while the provider is down (SES 500, Mailgun 429, unreachable) and delivers later', async () => {
    const tenant = await env.createTenant();
    const integrationId = await integrate(tenant, 'CLOUD_MAIL_PROVIDER', sesConfig());
    const to = uniqueEmail('ses-down');
    const outboxId = await queueWithoutJob(tenant.organizationId, to);
    ses.answerNext(500, 'InternalFailure', 'the service is down');
    await assert.rejects(
      deliverOutboxMail(env.database.db, env.ctx, outboxId, { number: 1, max: 10 }),
      /SES answered 500/,
    );
    let row = await outboxTo(to);
    assert.equal(row?.status, 'PENDING');
    assert.match(row?.last_error ?? '', /InternalFailure/);
    assert.match((await integration(integrationId)).last_error ?? '', /SES answered 500/);
    assert.equal(await deliverOutboxMail(env.database.db, env.ctx, outboxId, { number: 2, max: 10 }), 'sent');
    row = await outboxTo(to);
    assert.equal(row?.status, 'SENT');
    assert.equal(row?.transport, 'ses');
    assert.equal(row?.attempts, 2);

    const limited = await env.createTenant();
    await integrate(limited, 'API_MAIL_PROVIDER', mailgunConfig());
    const throttled = uniqueEmail('mailgun-429');
    const throttledId = await queueWithoutJob(limited.organizationId, throttled);
    mailgun.answerNext(429, { message: 'too many requests' });
    await assert.rejects(
      deliverOutboxMail(env.database.db, env.ctx, throttledId, { number: 1, max: 10 }),
      /Mailgun answered 429/,
    );
    assert.equal((await outboxTo(throttled))?.status, 'PENDING');
    assert.equal(
      await deliverOutboxMail(env.database.db, env.ctx, throttledId, { number: 2, max: 10 }),
      'sent',
    );

    const unreachable = await env.createTenant();
    // Nothing listens on port 9 of loopback: refused connections are retried, not given up.
    await integrate(unreachable, 'CUSTOM_SMTP', smtpConfig(9, false));
    await env.database.db
      .updateTable('email_integrations')
      .set({ active: true })
      .where('organization_id', '=', unreachable.organizationId)
      .execute();
    const lost = uniqueEmail('smtp-unreachable');
    const lostId = await queueWithoutJob(unreachable.organizationId, lost);
    await assert.rejects(
      deliverOutboxMail(env.database.db, env.ctx, lostId, { number: 1, max: 10 }),
      /ECONNREFUSED/,
    );
    assert.equal((await outboxTo(lost))?.status, 'PENDING');
  });

  it('falls back to the platform default while CUSTOM_SMTP is inactive and after the integration is deleted', async () => {
    const tenant = await env.createTenant();
    const id = await integrate(tenant, 'CUSTOM_SMTP', smtpConfig(startTls.port, false));
    const deliver = async (label: string) => {
      const to = uniqueEmail(label);
      const outboxId = await queueWithoutJob(tenant.organizationId, to);
      assert.equal(
        await deliverOutboxMail(env.database.db, env.ctx, outboxId, { number: 1, max: 10 }),
        'sent',
      );
      return { to, row: await outboxTo(to) };
    };
    const inactive = await deliver('inactive');
    assert.equal(inactive.row?.transport, 'mailbox');
    assert.equal(startTls.receivedBy(inactive.to).length, 0);

    await env.call('PATCH', `/v1/email-integrations/${id}`, {
      token: env.platformAdmin.token,
      body: { active: true },
    });
    const active = await deliver('active');
    assert.equal(active.row?.transport, 'smtp');
    assert.equal(startTls.receivedBy(active.to).length, 1);

    await env.call('PATCH', `/v1/email-integrations/${id}`, {
      token: env.platformAdmin.token,
      body: { active: false },
    });
    assert.equal((await deliver('deactivated')).row?.transport, 'mailbox');

    await env.call('PATCH', `/v1/email-integrations/${id}`, {
      token: env.platformAdmin.token,
      body: { active: true },
    });
    assert.equal((await deliver('reactivated')).row?.transport, 'smtp');
    const deleted = await env.call('DELETE', `/v1/email-integrations/${id}`, { token: tenant.admin.token });
    assert.equal(deleted.statusCode, 204);
    const after = await deliver('deleted');
    assert.equal(after.row?.transport, 'mailbox');
    assert.equal(startTls.receivedBy(after.to).length, 0);
  });

  it('uses an edited integration at once (a rotated Mailgun key, a new sender)', async () => {
    const tenant = await env.createTenant();
    const id = await integrate(tenant, 'API_MAIL_PROVIDER', mailgunConfig());
    const first = uniqueEmail('before-rotation');
    const firstId = await queueWithoutJob(tenant.organizationId, first);
    assert.equal(await deliverOutboxMail(env.database.db, env.ctx, firstId, { number: 1, max: 10 }), 'sent');
    const edited = await env.call('PATCH', `/v1/email-integrations/${id}`, {
      token: tenant.admin.token,
      body: { config: { api_key: ROTATED_KEY, email_from: 'New Name <new@acme.test>' } },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    const second = uniqueEmail('after-rotation');
    const secondId = await queueWithoutJob(tenant.organizationId, second);
    assert.equal(await deliverOutboxMail(env.database.db, env.ctx, secondId, { number: 1, max: 10 }), 'sent');
    const requestTo = (to: string) => mailgun.requests.find((r) => r.to.includes(to));
    assert.equal(requestTo(first)?.credentials, `api:${MAILGUN_KEY}`);
    assert.equal(requestTo(second)?.credentials, `api:${ROTATED_KEY}`);
    assert.deepEqual(requestTo(second)?.parsed.from?.value, [{ name: 'New Name', address: 'new@acme.test' }]);
  });
});
