import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { AppContext } from '../src/context.ts';
import { createDatabase } from '../src/db/database.ts';
import type { MailOutboxRow } from '../src/db/schema.ts';
import { enqueue } from '../src/jobs/enqueue.ts';
import { sendMailJob } from '../src/modules/platform/mail/mail.jobs.ts';
import { queueMail } from '../src/modules/platform/mail/mail.service.ts';
import {
  claimDelivery,
  deliverOutboxMail,
  messageIdOf,
  recordDelivery,
  sendClaimedMail,
} from '../src/modules/platform/mail/mail-delivery.service.ts';
import type { MailTransport, OutgoingMail } from '../src/providers/mail/transport.ts';
import { platformFromAddress, platformMailTransports } from '../src/providers/mail/transports.ts';
import { buildWorker, type Worker } from '../src/worker.ts';
import { setupTest, type TestEnv } from './harness.ts';
import { waitFor } from './support/wait.ts';

/** A transport that records what it is given and does what the test says with each send. */
function testTransport(onSend: (mail: OutgoingMail) => Promise<void> = async () => {}) {
  const sent: { mail: OutgoingMail; at: number }[] = [];
  const transport: MailTransport = {
    name: 'test',
    async send(mail) {
      sent.push({ mail, at: Date.now() });
      await onSend(mail);
    },
    async close() {},
  };
  return { transport, sent };
}

/** The test's context with every organization's mail going through `transport`. */
function depsWith(env: TestEnv, transport: MailTransport): AppContext {
  return { ...env.ctx, mail: platformMailTransports(transport, platformFromAddress(env.ctx.config)) };
}

let counter = 0;
/** An outbox message whose queued job is removed in the same transaction: the test delivers it. */
function queueWithoutJob(env: TestEnv): Promise<string> {
  return env.database.db.transaction().execute(async (tx) => {
    const id = await queueMail(tx, {
      organizationId: null,
      templateType: 'USER_INVITE',
      to: `delivery-${++counter}-${Date.now().toString(36)}@example.test`,
      variables: {
        organization_name: 'Platform',
        verify_url: 'http://tokens.test/verify',
        expires_at: 'soon',
      },
    });
    await sql`SELECT graphile_worker.remove_job(${`mail:${id}`})`.execute(tx);
    return id;
  });
}

function outbox(env: TestEnv, id: string): Promise<MailOutboxRow> {
  return env.database.db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('outbox delivery: claim, commit, send, record', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(async () => {
    await env?.close();
  });

  it('holds no row lock and no pooled connection while the transport sends', async () => {
    const id = await queueWithoutJob(env);
    let started!: () => void;
    let release!: () => void;
    const sending = new Promise<void>((resolve) => {
      started = resolve;
    });
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { transport, sent } = testTransport(async () => {
      started();
      await gate;
    });
    // A pool of one: if the delivery kept its client during the send, nothing else could run.
    const small = createDatabase(env.databaseUrl, { max: 1 });
    try {
      const delivery = deliverOutboxMail(small.db, depsWith(env, transport), id, { number: 1, max: 10 });
      await sending;
      assert.equal(
        small.pool.totalCount - small.pool.idleCount,
        0,
        'a client is checked out during the send',
      );
      const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(small.db);
      assert.equal(rows[0]?.one, 1);

      // Another connection can lock the row at once: no transaction is open on it.
      const locked = await env.database.db.transaction().execute(async (tx) => {
        const result = await sql<{ status: string; claimed: boolean }>`
          SELECT status, claimed_until > now() AS claimed FROM mail_outbox WHERE id = ${id} FOR UPDATE NOWAIT`.execute(
          tx,
        );
        return result.rows[0];
      });
      assert.deepEqual(locked, { status: 'SENDING', claimed: true });

      release();
      assert.equal(await delivery, 'sent');
    } finally {
      release();
      await small.destroy();
    }
    assert.equal(sent.length, 1);
    const row = await outbox(env, id);
    assert.equal(row.status, 'SENT');
    assert.equal(row.transport, 'test');
    assert.equal(row.send_count, 1);
    assert.equal(row.resent, false);
    assert.equal(row.claimed_until, null);
    assert.ok(row.sent_at instanceof Date);
  });

  it('after a crash between send and record, sends once more with the same Message-ID and records the re-send', async () => {
    const id = await queueWithoutJob(env);
    const { transport, sent } = testTransport();
    const deps = depsWith(env, transport);

    // The first delivery claims and sends, then its process dies: the outcome is never recorded.
    const claim = await claimDelivery(env.database.db, id, 1500);
    assert.equal(claim.kind, 'claimed');
    if (claim.kind !== 'claimed') return;
    assert.deepEqual(await sendClaimedMail(deps, claim.mail), { ok: true, transport: 'test' });
    assert.equal((await outbox(env, id)).status, 'SENDING');

    // While its claim lasts, no other delivery sends it.
    assert.equal(await deliverOutboxMail(env.database.db, deps, id, { number: 2, max: 10 }), 'busy');
    assert.equal(sent.length, 1);

    await sleep(1600);
    assert.equal(await deliverOutboxMail(env.database.db, deps, id, { number: 3, max: 10 }), 'sent');
    assert.equal(sent.length, 2);
    assert.equal(sent[0]?.mail.messageId, messageIdOf(id));
    assert.equal(sent[1]?.mail.messageId, messageIdOf(id));

    const row = await outbox(env, id);
    assert.equal(row.status, 'SENT');
    assert.equal(row.send_count, 2);
    assert.equal(row.resent, true);
    assert.equal(row.attempts, 1, 'one outcome was recorded');

    // Sent and recorded: a later run sends nothing.
    assert.equal(await deliverOutboxMail(env.database.db, deps, id, { number: 4, max: 10 }), 'already_sent');
    assert.equal(sent.length, 2);
  });

  it('does not let the late failure of an expired claim overwrite the delivery that took over', async () => {
    const id = await queueWithoutJob(env);
    const first = await claimDelivery(env.database.db, id, 1);
    await sleep(20);
    const second = await claimDelivery(env.database.db, id);
    assert.ok(first.kind === 'claimed' && second.kind === 'claimed');
    await recordDelivery(
      env.database.db,
      first.mail,
      { ok: false, error: new Error('timed out'), permanent: false, integrationId: null },
      { number: 1, max: 1 },
    );
    let row = await outbox(env, id);
    assert.equal(row.status, 'SENDING', 'the stale claim recorded nothing');
    assert.equal(row.last_error, null);

    await recordDelivery(
      env.database.db,
      second.mail,
      { ok: true, transport: 'test' },
      { number: 2, max: 10 },
    );
    row = await outbox(env, id);
    assert.equal(row.status, 'SENT');
    assert.equal(row.send_count, 2);
    assert.equal(row.resent, true);
  });

  it('records a send that fails as PENDING with its error, then FAILED on the last attempt', async () => {
    const id = await queueWithoutJob(env);
    const { transport, sent } = testTransport(async () => {
      throw new Error('421 service not available');
    });
    const deps = depsWith(env, transport);
    await assert.rejects(deliverOutboxMail(env.database.db, deps, id, { number: 1, max: 2 }), /421/);
    let row = await outbox(env, id);
    assert.equal(row.status, 'PENDING');
    assert.equal(row.claimed_until, null);
    assert.match(row.last_error ?? '', /421 service not available/);

    await assert.rejects(deliverOutboxMail(env.database.db, deps, id, { number: 2, max: 2 }), /421/);
    row = await outbox(env, id);
    assert.equal(row.status, 'FAILED');
    assert.equal(row.attempts, 2);
    assert.equal(row.send_count, 2);
    assert.equal(row.resent, false);

    // Given up: a job that runs again sends nothing.
    assert.equal(await deliverOutboxMail(env.database.db, deps, id, { number: 3, max: 3 }), 'given_up');
    assert.equal(sent.length, 2);
  });
});

describe('send_mail jobs through the worker', () => {
  let env: TestEnv;
  let worker: Worker;
  const failing = testTransport(async () => {
    throw new Error('451 mailbox busy, try again later');
  });
  before(async () => {
    env = await setupTest();
    worker = await buildWorker(depsWith(env, failing.transport), env.database, {
      pollIntervalMs: 100,
    });
  });
  after(async () => {
    await worker?.stop();
    await env?.close();
  });

  it('retries a transport that keeps failing with backoff and leaves the message FAILED after the last attempt', async () => {
    const id = await queueWithoutJob(env);
    await enqueue(env.database.db, sendMailJob, { outbox_id: id }, { jobKey: `mail:${id}`, maxAttempts: 2 });
    const row = await waitFor('the message to be FAILED', async () => {
      const current = await outbox(env, id);
      return current.status === 'FAILED' ? current : undefined;
    });
    assert.equal(row.attempts, 2);
    assert.equal(row.send_count, 2);
    assert.match(row.last_error ?? '', /451 mailbox busy/);
    const sends = failing.sent.filter((s) => s.mail.id === id);
    assert.equal(sends.length, 2);
    // graphile-worker waits exp(1) s before the second attempt.
    assert.ok(sends[1]!.at - sends[0]!.at >= 2000, `retried after ${sends[1]!.at - sends[0]!.at} ms`);
  });

  it('refuses to enqueue a payload that does not match the task, adding nothing', async () => {
    await assert.rejects(
      enqueue(env.database.db, sendMailJob, { outbox_id: 'not-an-id' }, { jobKey: 'refused' }),
      /send_mail job refused: \/outbox_id: /,
    );
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM graphile_worker.jobs WHERE key = 'refused'`.execute(env.database.db);
    assert.equal(rows[0]?.n, '0');
  });

  it('drops a job whose payload does not match its task instead of retrying it', async () => {
    // Only a test adds a job by hand: enqueue refuses such a payload.
    await sql`SELECT graphile_worker.add_job('send_mail', '{"outbox_id": 7}'::json, job_key := 'malformed')`.execute(
      env.database.db,
    );
    await waitFor('the malformed job to complete', async () => {
      const { rows } = await sql<{ n: string }>`
        SELECT count(*) AS n FROM graphile_worker.jobs WHERE key = 'malformed'`.execute(env.database.db);
      return rows[0]?.n === '0' ? true : undefined;
    });
  });
});
