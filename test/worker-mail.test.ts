import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { SMTPServer } from 'smtp-server';
import { ROLE_IDS } from '../src/access/permissions.ts';
import type { MailOutboxRow } from '../src/db/schema.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import { queueMail } from '../src/modules/platform/mail/mail.service.ts';
import { deliverOutboxMail } from '../src/modules/platform/mail/mail-delivery.service.ts';
import { buildWorker, type Worker } from '../src/worker.ts';
import { setupTest, type TestEnv } from './harness.ts';
import { waitFor } from './support/wait.ts';

function findOutbox(env: TestEnv, to: string): Promise<MailOutboxRow | undefined> {
  return env.database.db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('to_address', '=', to)
    .executeTakeFirst();
}

function waitForOutboxStatus(
  env: TestEnv,
  to: string,
  status: MailOutboxRow['status'],
): Promise<MailOutboxRow> {
  return waitFor(`the outbox mail to ${to} to be ${status}`, async () => {
    const row = await findOutbox(env, to);
    return row?.status === status ? row : undefined;
  });
}

async function invite(env: TestEnv, email: string, organizationId?: string): Promise<string> {
  const response = await env.call('POST', '/v1/users', {
    token: env.platformAdmin.token,
    body: { email, role_id: ROLE_IDS.ORG_MEMBER, ...(organizationId && { organization_id: organizationId }) },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().id as string;
}

let counter = 0;
function uniqueEmail(label: string): string {
  return `${label}-${++counter}-${Date.now().toString(36)}@example.test`;
}

describe('mail to the local mailbox (no SMTP_URL)', () => {
  let env: TestEnv;
  let worker: Worker;
  before(async () => {
    env = await setupTest();
    worker = await buildWorker(env.ctx, env.database, { pollIntervalMs: 100 });
  });
  after(async () => {
    await worker?.stop();
    await env?.close();
  });

  function mailbox(query: Record<string, string> = {}, token = env.platformAdmin.token) {
    return env.call('GET', '/v1/mailbox', { token, query });
  }

  it('delivers an invitation into the mailbox with a verify link that verifies the user', async () => {
    const email = uniqueEmail('invitee');
    await invite(env, email);

    const message = await waitFor('the invitation in GET /v1/mailbox', async () => {
      const page = await mailbox({ to: email });
      assert.equal(page.statusCode, 200, page.body);
      return page.json().results[0] as
        | { to: string; subject: string; html: string; text: string }
        | undefined;
    });
    assert.equal(message.to, email);
    assert.equal(message.subject, 'You are invited to Platform');
    const link = /http:\/\/tokens\.test\/verify\?token=[^&\s]+&email=[^\s)]+/.exec(message.text)?.[0];
    assert.ok(link, message.text);
    const url = new URL(link);
    assert.equal(url.searchParams.get('email'), email);
    const token = url.searchParams.get('token');
    assert.ok(token);
    assert.ok(message.html.includes(`token&#x3D;${token}&amp;email&#x3D;`), message.html);

    const outbox = await findOutbox(env, email);
    assert.equal(outbox?.status, 'SENT');
    assert.equal(outbox?.transport, 'mailbox');
    assert.equal(outbox?.template_type, 'USER_INVITE');
    assert.equal(outbox?.attempts, 1);
    assert.equal(outbox?.last_error, null);
    assert.ok(outbox?.sent_at instanceof Date);

    // The link carries a real verify token: the invitee sets a password with it and is signed in.
    const verified = await env.call('POST', '/v1/auth/verify', {
      body: { email, token, password: 'a new password 1' },
    });
    assert.equal(verified.statusCode, 200, verified.body);
    assert.ok(verified.json().access_token);
  });

  it('escapes an organization name with markup in the HTML of the mail', async () => {
    const organization = await env.createOrganization('<script>alert(1)</script> Traders');
    const email = uniqueEmail('escaped');
    await invite(env, email, organization.id);
    const row = await waitForOutboxStatus(env, email, 'SENT');
    assert.equal(row.organization_id, organization.id);
    const message = (await mailbox({ to: email })).json().results[0];
    assert.equal(message.subject, 'You are invited to <script>alert(1)</script> Traders');
    assert.ok(!message.html.includes('<script>'), message.html);
    assert.ok(message.html.includes('&lt;script&gt;alert(1)&lt;/script&gt; Traders'), message.html);
  });

  it('filters the mailbox by recipient, case-insensitively', async () => {
    const first = uniqueEmail('first');
    const second = uniqueEmail('second');
    await invite(env, first);
    await invite(env, second);
    await waitForOutboxStatus(env, first, 'SENT');
    await waitForOutboxStatus(env, second, 'SENT');

    const onlyFirst = await mailbox({ to: first.toUpperCase() });
    assert.equal(onlyFirst.statusCode, 200, onlyFirst.body);
    assert.deepEqual(
      onlyFirst.json().results.map((m: { to: string }) => m.to),
      [first],
    );
    assert.equal(onlyFirst.json().total_results, 1);

    const all = await mailbox({ limit: '100' });
    const recipients = all.json().results.map((m: { to: string }) => m.to);
    assert.ok(recipients.includes(first) && recipients.includes(second), recipients.join(', '));
  });

  it('keeps the mailbox to platform admins', async () => {
    const organization = await env.createOrganization();
    const orgAdmin = await env.createUser(organization.id, 'ORG_ADMIN');
    const member = await env.createUser(env.platformOrganizationId, 'ORG_MEMBER');
    const platformOrgAdmin = await env.createUser(env.platformOrganizationId, 'ORG_ADMIN');
    for (const actor of [orgAdmin, member, platformOrgAdmin]) {
      const response = await mailbox({}, actor.token);
      assert.equal(response.statusCode, 403, response.body);
      assert.equal(response.json().error.code, 'FORBIDDEN');
    }
    assert.equal((await env.call('GET', '/v1/mailbox')).statusCode, 401);
  });

  it('does not put a message in the mailbox twice when its delivery runs again', async () => {
    const email = uniqueEmail('again');
    await invite(env, email);
    const row = await waitForOutboxStatus(env, email, 'SENT');
    assert.equal(
      await deliverOutboxMail(env.database.db, env.ctx, row.id, { number: 2, max: 10 }),
      'already_sent',
    );
    assert.equal((await mailbox({ to: email })).json().total_results, 1);
  });

  it('delivers a message once when two workers run its delivery at the same time', async () => {
    const email = uniqueEmail('race');
    // The queued job is removed in the same transaction: the two deliveries below are the workers.
    const outboxId = await env.database.db.transaction().execute(async (tx) => {
      const id = await queueMail(tx, {
        organizationId: null,
        templateType: 'USER_INVITE',
        to: email,
        variables: {
          organization_name: 'Platform',
          verify_url: 'http://tokens.test/verify',
          expires_at: 'soon',
        },
      });
      await sql`SELECT graphile_worker.remove_job(${`mail:${id}`})`.execute(tx);
      return id;
    });
    const outcomes = await Promise.all([
      deliverOutboxMail(env.database.db, env.ctx, outboxId, { number: 1, max: 10 }),
      deliverOutboxMail(env.database.db, env.ctx, outboxId, { number: 1, max: 10 }),
    ]);
    // The loser finds the message claimed (busy) or, if the winner was quicker, already sent.
    const [first, second] = outcomes.sort((a, b) => (a === 'sent' ? -1 : b === 'sent' ? 1 : 0));
    assert.equal(first, 'sent', outcomes.join());
    assert.ok(second === 'busy' || second === 'already_sent', outcomes.join());
    assert.equal((await mailbox({ to: email })).json().total_results, 1);
    const row = await findOutbox(env, email);
    assert.equal(row?.attempts, 1);
    assert.equal(row?.send_count, 1);
    assert.equal(row?.resent, false);
  });
});

interface ReceivedMail {
  recipients: string[];
  raw: string;
}

/** A real SMTP server on loopback that can refuse the DATA of chosen recipients a number of times. */
async function startSmtpServer() {
  const received: ReceivedMail[] = [];
  const refusals = new Map<string, number>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        const refused = recipients.find((r) => (refusals.get(r) ?? 0) > 0);
        if (refused !== undefined) {
          refusals.set(refused, (refusals.get(refused) ?? 0) - 1);
          callback(Object.assign(new Error('mailbox busy, try again later'), { responseCode: 451 }));
          return;
        }
        received.push({ recipients, raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuse(recipient: string, times: number) {
      refusals.set(recipient, times);
    },
    receivedBy: (recipient: string) => received.filter((m) => m.recipients.includes(recipient)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function header(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

describe('mail over SMTP (SMTP_URL set)', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let env: TestEnv;
  let worker: Worker;
  before(async () => {
    smtp = await startSmtpServer();
    env = await setupTest({ SMTP_URL: smtp.url });
    assert.equal(env.ctx.config.smtpUrl, smtp.url);
    worker = await buildWorker(env.ctx, env.database, { pollIntervalMs: 100 });
  });
  after(async () => {
    await worker?.stop();
    await env?.close();
    await smtp?.close();
  });

  it('delivers an invitation to the SMTP server with the outbox id in its Message-ID', async () => {
    const email = uniqueEmail('smtp');
    await invite(env, email);
    const row = await waitForOutboxStatus(env, email, 'SENT');
    assert.equal(row.transport, 'smtp');
    assert.equal(row.attempts, 1);

    const [mail, ...others] = smtp.receivedBy(email);
    assert.ok(mail, 'the SMTP server received nothing');
    assert.equal(others.length, 0);
    assert.deepEqual(mail.recipients, [email]);
    assert.equal(header(mail.raw, 'Subject'), 'You are invited to Platform');
    assert.equal(header(mail.raw, 'To'), email);
    assert.equal(header(mail.raw, 'From'), 'Token Issuance Service <no-reply@tokens.test>');
    assert.ok(header(mail.raw, 'Message-ID')?.includes(row.id), header(mail.raw, 'Message-ID'));
    assert.ok(mail.raw.includes('http://tokens.test/verify?token=3D'), 'the verify link is in the body');
  });

  it('has no local mailbox: GET /v1/mailbox is 404 even for a platform admin', async () => {
    const response = await env.call('GET', '/v1/mailbox', { token: env.platformAdmin.token });
    assert.equal(response.statusCode, 404, response.body);
    assert.equal(response.json().error.code, 'NOT_FOUND');
  });

  it('records a refused delivery, retries it, and delivers it once', async () => {
    const email = uniqueEmail('retry');
    smtp.refuse(email, 1);
    await invite(env, email);

    const failed = await waitFor('the refused attempt to be recorded', async () => {
      const row = await findOutbox(env, email);
      return row && row.attempts >= 1 ? row : undefined;
    });
    assert.equal(failed.status, 'PENDING');
    assert.match(failed.last_error ?? '', /451|try again later/);

    const sent = await waitForOutboxStatus(env, email, 'SENT');
    assert.equal(sent.attempts, 2);
    assert.equal(sent.last_error, null);
    assert.equal(smtp.receivedBy(email).length, 1);
    // The job ends once its handler has returned, just after the row says SENT: no third attempt
    // stays queued.
    await waitFor('the job to be done, not waiting for another attempt', async () => {
      const { count } = await sql<{ count: string }>`
        SELECT count(*) AS count FROM graphile_worker.jobs WHERE key = ${`mail:${sent.id}`}`
        .execute(env.database.db)
        .then((r) => r.rows[0] ?? { count: '-1' });
      return count === '0' ? true : undefined;
    });

    // Its job already succeeded: running the delivery again sends nothing.
    assert.equal(
      await deliverOutboxMail(env.database.db, env.ctx, sent.id, { number: 3, max: 10 }),
      'already_sent',
    );
    assert.equal(smtp.receivedBy(email).length, 1);
  });

  it('marks the message FAILED when the last attempt is refused', async () => {
    const email = uniqueEmail('failing');
    smtp.refuse(email, Number.POSITIVE_INFINITY);
    // This test plays the job's attempts itself: the queued job is removed before it is visible.
    const outboxId = await env.database.db.transaction().execute(async (tx) => {
      const id = await queueMail(tx, {
        organizationId: null,
        templateType: 'USER_INVITE',
        to: email,
        variables: {
          organization_name: 'Platform',
          verify_url: 'http://tokens.test/verify',
          expires_at: 'soon',
        },
      });
      await sql`SELECT graphile_worker.remove_job(${`mail:${id}`})`.execute(tx);
      return id;
    });

    await assert.rejects(
      deliverOutboxMail(env.database.db, env.ctx, outboxId, { number: 9, max: 10 }),
      /try again/,
    );
    let row = await findOutbox(env, email);
    assert.equal(row?.status, 'PENDING');
    assert.equal(row?.attempts, 1);

    await assert.rejects(
      deliverOutboxMail(env.database.db, env.ctx, outboxId, { number: 10, max: 10 }),
      /try again/,
    );
    row = await findOutbox(env, email);
    assert.equal(row?.status, 'FAILED');
    assert.equal(row?.attempts, 2);
    assert.match(row?.last_error ?? '', /try again later/);
    assert.equal(smtp.receivedBy(email).length, 0);
  });

  it('reports an outbox id that does not exist as missing', async () => {
    assert.equal(
      await deliverOutboxMail(env.database.db, env.ctx, uuidv7(), { number: 1, max: 10 }),
      'missing',
    );
  });
});
