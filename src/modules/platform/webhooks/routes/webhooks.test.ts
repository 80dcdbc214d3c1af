import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { assertError } from '../../../../../test/assertions.ts';
import { setupTest, type Tenant, type TestEnv } from '../../../../../test/harness.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../../test/support/webhook-receiver.ts';
import type { WebhookEventType } from '../../../../db/schema.ts';
import { createWebhookSender, type WebhookSender } from '../../../../providers/webhooks/sender.ts';
import { maintenanceTask } from '../../maintenance/maintenance.task.ts';
import {
  DELIVERY_CLAIM_MS,
  type DeliveryOptions,
  deliverWebhook,
  MAX_ATTEMPTS,
} from '../webhook-delivery.service.ts';
import { emitEvent } from '../webhook-events.service.ts';

const NO_WAIT: DeliveryOptions = { retryDelaysMs: [0] };

describe('webhooks: endpoints, signed deliveries, retries, order, rotation', () => {
  let env: TestEnv;
  let tenant: Tenant;
  let receiver: WebhookReceiver;
  before(async () => {
    env = await setupTest({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    tenant = await env.createTenant();
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await receiver?.close();
    await env?.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.statuses.length = 0;
  });

  const db = () => env.database.db;
  const admin = () => tenant.admin.token;

  async function createWebhook(
    events: WebhookEventType[] = ['item.minted', 'webhook.test'],
    url = receiver.url,
  ): Promise<{ id: string; secret: string }> {
    const response = await env.call('POST', '/v1/webhooks', { token: admin(), body: { url, events } });
    assert.equal(response.statusCode, 201, response.body);
    const created = response.json() as { id: string; secret: string };
    receiver.secrets = [created.secret];
    return created;
  }

  /** Emits an event as a module would, in its own transaction; returns its deliveries' ids. */
  async function emit(type: WebhookEventType, resourceId: string, data: unknown = { id: resourceId }) {
    const eventId = await db()
      .transaction()
      .execute((tx) => emitEvent(tx, { organizationId: tenant.organizationId, type, resourceId, data }));
    assert.ok(eventId, 'someone is subscribed');
    const rows = await db()
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('event_id', '=', eventId)
      .execute();
    return rows.map((r) => r.id);
  }

  const delivery = (id: string) =>
    db().selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('creates an endpoint with a whsec_ secret shown once and stored encrypted', async () => {
    const created = await createWebhook(['item.minted']);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const got = await env.call('GET', `/v1/webhooks/${created.id}`, { token: tenant.member.token });
    assert.equal(got.statusCode, 200, got.body);
    assert.equal(got.json().secret, undefined);
    assert.deepEqual(got.json().events, ['item.minted']);
    assert.equal(got.json().enabled, true);
    assert.equal(got.json().disabled_reason, null);
    const list = await env.call('GET', '/v1/webhooks', { token: tenant.member.token });
    assert.ok(list.json().results.some((w: { id: string }) => w.id === created.id));
    assert.ok(!list.body.includes(created.secret));
    const row = await db()
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.ok(!row.secret_encrypted.includes(created.secret.slice(6, 20)));
    assert.equal(env.ctx.keyring.decrypt(row.secret_encrypted), created.secret);
  });

  it('refuses unknown event types, empty lists, unknown fields and malformed URLs (400)', async () => {
    const post = (body: unknown) => env.call('POST', '/v1/webhooks', { token: admin(), body });
    assertError(await post({ url: receiver.url, events: ['item.burned'] }), 400, 'VALIDATION_FAILED');
    assertError(await post({ url: receiver.url, events: [] }), 400, 'VALIDATION_FAILED');
    assertError(
      await post({ url: receiver.url, events: ['item.minted'], secret: 'x' }),
      400,
      'VALIDATION_FAILED',
    );
    for (const url of [
      'not a url',
      'ftp://example.com/x',
      'https://user:pw@example.com/',
      'file:///etc/passwd',
    ])
      assertError(await post({ url, events: ['item.minted'] }), 400, 'VALIDATION_FAILED', {
        fields: ['/url'],
      });
    const { id } = await createWebhook();
    const patch = (body: unknown) => env.call('PATCH', `/v1/webhooks/${id}`, { token: admin(), body });
    assertError(await patch({}), 400, 'VALIDATION_FAILED');
    assertError(await patch({ events: ['nope'] }), 400, 'VALIDATION_FAILED');
    const edited = await patch({ events: ['item.transferred'], enabled: false });
    assert.equal(edited.statusCode, 200, edited.body);
    assert.deepEqual(edited.json().events, ['item.transferred']);
    assert.equal(edited.json().enabled, false);
  });

  it('lets ORG_MEMBER read but not write, and answers 404 to another organization', async () => {
    const { id } = await createWebhook();
    const [deliveryId] = await emit('item.minted', 'member-check');
    const member = { token: tenant.member.token };
    assert.equal((await env.call('GET', `/v1/webhooks/${id}/deliveries`, member)).statusCode, 200);
    assertError(
      await env.call('POST', '/v1/webhooks', {
        ...member,
        body: { url: receiver.url, events: ['item.minted'] },
      }),
      403,
      'FORBIDDEN',
    );
    assertError(
      await env.call('PATCH', `/v1/webhooks/${id}`, { ...member, body: { enabled: false } }),
      403,
      'FORBIDDEN',
    );
    assertError(await env.call('DELETE', `/v1/webhooks/${id}`, member), 403, 'FORBIDDEN');
    assertError(await env.call('POST', `/v1/webhooks/${id}/test`, member), 403, 'FORBIDDEN');
    assertError(await env.call('POST', `/v1/webhooks/${id}/rotate-secret`, member), 403, 'FORBIDDEN');
    const stranger = { token: tenant.stranger.token };
    for (const [method, url] of [
      ['GET', `/v1/webhooks/${id}`],
      ['PATCH', `/v1/webhooks/${id}`],
      ['DELETE', `/v1/webhooks/${id}`],
      ['POST', `/v1/webhooks/${id}/test`],
      ['POST', `/v1/webhooks/${id}/rotate-secret`],
      ['GET', `/v1/webhooks/${id}/deliveries`],
      ['POST', `/v1/webhooks/${id}/deliveries/${deliveryId}/retry`],
    ] as const)
      assertError(
        await env.call(method, url, { ...stranger, ...(method === 'PATCH' && { body: { enabled: false } }) }),
        404,
        'NOT_FOUND',
        { what: `${method} ${url}` },
      );
    const stranglers = await env.call('GET', '/v1/webhooks', stranger);
    assert.ok(!stranglers.json().results.some((w: { id: string }) => w.id === id));
    // A delivery of another endpoint of the same organization is not this endpoint's.
    const other = await createWebhook(['item.minted']);
    assertError(
      await env.call('POST', `/v1/webhooks/${other.id}/deliveries/${deliveryId}/retry`, { token: admin() }),
      404,
      'NOT_FOUND',
    );
  });

  it('sends webhook.test signed per Standard Webhooks, and logs the delivery', async () => {
    const { id } = await createWebhook(['item.minted']);
    const response = await env.call('POST', `/v1/webhooks/${id}/test`, { token: admin() });
    assert.equal(response.statusCode, 201, response.body);
    const queued = response.json();
    assert.equal(queued.status, 'PENDING');
    assert.equal(queued.event_type, 'webhook.test');
    assert.equal(await deliverWebhook(db(), env.ctx, queued.id), 'succeeded');
    const [got] = await receiver.waitFor(1);
    assert.deepEqual(got!.verifiedWith, receiver.secrets);
    assert.equal(got!.id, queued.event_id);
    assert.equal(got!.payload.type, 'webhook.test');
    assert.equal(got!.payload.data.id, id);
    assert.match(got!.payload.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Math.abs(Number(got!.timestamp) - Date.now() / 1000) < 60);
    const log = await env.call('GET', `/v1/webhooks/${id}/deliveries`, { token: tenant.member.token });
    assert.equal(log.statusCode, 200, log.body);
    const [entry] = log.json().results;
    assert.equal(entry.id, queued.id);
    assert.equal(entry.status, 'SUCCEEDED');
    assert.equal(entry.attempts, 1);
    assert.equal(entry.response_status, 200);
    assert.equal(entry.next_attempt_at, null);
    const filtered = await env.call('GET', `/v1/webhooks/${id}/deliveries`, {
      token: admin(),
      query: { status: ['FAILED', 'PENDING'], event_type: 'webhook.test' },
    });
    assert.equal(filtered.json().total_results, 0);
    assertError(
      await env.call('GET', `/v1/webhooks/${id}/deliveries`, { token: admin(), query: { status: 'DONE' } }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('emits only to enabled endpoints of the organization subscribed to the type', async () => {
    const minted = await createWebhook(['item.minted']);
    const disabled = await createWebhook(['item.minted']);
    await env.call('PATCH', `/v1/webhooks/${disabled.id}`, { token: admin(), body: { enabled: false } });
    const transferred = await createWebhook(['item.transferred']);
    const ids = await emit('item.minted', 'subscribed-check');
    const targets = await db()
      .selectFrom('webhook_deliveries')
      .select('webhook_id')
      .where('id', 'in', ids)
      .execute();
    const webhookIds = targets.map((t) => t.webhook_id);
    assert.ok(webhookIds.includes(minted.id));
    assert.ok(!webhookIds.includes(disabled.id));
    assert.ok(!webhookIds.includes(transferred.id));
    const outsider = await db()
      .transaction()
      .execute((tx) =>
        emitEvent(tx, {
          organizationId: env.platformOrganizationId,
          type: 'item.minted',
          resourceId: 'x',
          data: {},
        }),
      );
    assert.equal(outsider, undefined, 'no endpoint of that organization: nothing written');
  });

  it('retries a failing endpoint with the same webhook-id until it answers 2xx', async () => {
    await deleteAllWebhooks();
    await createWebhook(['item.minted']);
    const [id] = await emit('item.minted', 'retry-check');
    receiver.statuses.push(500, 503);
    assert.equal(await deliverWebhook(db(), env.ctx, id!, NO_WAIT), 'retrying');
    const waiting = await delivery(id!);
    assert.equal(waiting.status, 'PENDING');
    assert.equal(waiting.response_status, 500);
    assert.equal(waiting.attempts, 1);
    assert.equal(await deliverWebhook(db(), env.ctx, id!, NO_WAIT), 'retrying');
    assert.equal(await deliverWebhook(db(), env.ctx, id!, NO_WAIT), 'succeeded');
    const done = await delivery(id!);
    assert.equal(done.status, 'SUCCEEDED');
    assert.equal(done.attempts, 3);
    assert.equal(receiver.received.length, 3);
    assert.equal(new Set(receiver.received.map((r) => r.id)).size, 1, 'one webhook-id across retries');
    assert.ok(receiver.received.every((r) => r.verifiedWith.length === 1));
  });

  it('waits about 5 s after a first failure and then longer, and gives up after the last attempt', async () => {
    await deleteAllWebhooks();
    await createWebhook(['item.minted']);
    const [id] = await emit('item.minted', 'backoff-check');
    receiver.statuses.push(500);
    const before = Date.now();
    assert.equal(await deliverWebhook(db(), env.ctx, id!), 'retrying');
    const waiting = await delivery(id!);
    const wait = waiting.next_attempt_at!.getTime() - before;
    assert.ok(wait >= 4_000 && wait <= 7_000, `first retry after ${wait} ms`);
    assert.equal(await deliverWebhook(db(), env.ctx, id!), 'not_due');
    // Every later attempt fails too.
    receiver.statuses.push(...Array(MAX_ATTEMPTS).fill(500));
    let outcome = '';
    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      await db()
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: new Date() })
        .where('id', '=', id!)
        .execute();
      outcome = await deliverWebhook(db(), env.ctx, id!);
    }
    assert.equal(outcome, 'failed');
    const failed = await delivery(id!);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.attempts, MAX_ATTEMPTS);
    assert.equal(failed.next_attempt_at, null);
    assert.equal(MAX_ATTEMPTS, 7);

    // A manual retry gives it one more attempt, now.
    receiver.statuses.length = 0;
    const webhookId = failed.webhook_id;
    const retried = await env.call('POST', `/v1/webhooks/${webhookId}/deliveries/${id}/retry`, {
      token: admin(),
    });
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(retried.json().status, 'PENDING');
    assert.equal(await deliverWebhook(db(), env.ctx, id!), 'succeeded');
    assert.equal((await delivery(id!)).attempts, MAX_ATTEMPTS + 1);
  });

  it('keeps the order per resource: a later event waits until the earlier one succeeded or failed for good', async () => {
    await deleteAllWebhooks();
    await createWebhook(['item.minted', 'item.transferred']);
    const [first] = await emit('item.minted', 'item-a', { step: 1 });
    const [second] = await emit('item.transferred', 'item-a', { step: 2 });
    const [other] = await emit('item.minted', 'item-b', { step: 3 });
    receiver.statuses.push(500);
    assert.equal(await deliverWebhook(db(), env.ctx, first!, NO_WAIT), 'retrying');
    assert.equal(await deliverWebhook(db(), env.ctx, second!, NO_WAIT), 'blocked');
    assert.equal(
      await deliverWebhook(db(), env.ctx, other!, NO_WAIT),
      'succeeded',
      'another resource is not held up',
    );
    assert.equal(await deliverWebhook(db(), env.ctx, first!, NO_WAIT), 'succeeded');
    // The first one's success queued the second's job.
    const job = await sql<{ n: string }>`SELECT count(*) AS n FROM graphile_worker.jobs
      WHERE key = ${`webhook:${second}`}`.execute(db());
    assert.equal(job.rows[0]!.n, '1');
    assert.equal(await deliverWebhook(db(), env.ctx, second!, NO_WAIT), 'succeeded');
    assert.deepEqual(
      receiver.received.map((r) => r.payload.data.step),
      [1, 3, 1, 2],
    );
  });

  it('signs with the old and the new secret for 24 h after a rotation, then with the new one only', async () => {
    await deleteAllWebhooks();
    const { id, secret: old } = await createWebhook(['item.minted']);
    const rotated = await env.call('POST', `/v1/webhooks/${id}/rotate-secret`, { token: admin() });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const fresh = rotated.json().secret as string;
    assert.match(fresh, /^whsec_/);
    assert.notEqual(fresh, old);
    assert.ok(rotated.json().secret_rotated_at);
    receiver.secrets = [old, fresh];
    const [d1] = await emit('item.minted', 'rotation-1');
    assert.equal(await deliverWebhook(db(), env.ctx, d1!), 'succeeded');
    assert.deepEqual(receiver.received[0]!.verifiedWith, [old, fresh]);
    assert.equal(receiver.received[0]!.signature.split(' ').length, 2);

    await db()
      .updateTable('webhooks')
      .set({ secret_rotated_at: new Date(Date.now() - 24 * 3600_000 - 1000) })
      .where('id', '=', id)
      .execute();
    const [d2] = await emit('item.minted', 'rotation-2');
    assert.equal(await deliverWebhook(db(), env.ctx, d2!), 'succeeded');
    assert.deepEqual(receiver.received[1]!.verifiedWith, [fresh]);
    assert.equal(receiver.received[1]!.signature.split(' ').length, 1);
  });

  it('delivers again with the same webhook-id when the sender died between send and record', async () => {
    await deleteAllWebhooks();
    await createWebhook(['item.minted']);
    const [id] = await emit('item.minted', 'crash-check');
    // The POST reaches the endpoint, then the process "dies" before recording the outcome.
    const crashing: WebhookSender = {
      checkUrl: (url) => env.ctx.webhooks.checkUrl(url),
      async post(request) {
        await env.ctx.webhooks.post(request);
        throw new Error('process killed');
      },
    };
    await assert.rejects(deliverWebhook(db(), { ...env.ctx, webhooks: crashing }, id!), /process killed/);
    const stuck = await delivery(id!);
    assert.equal(stuck.status, 'SENDING');
    assert.equal(await deliverWebhook(db(), env.ctx, id!), 'busy', 'the claim still runs');
    await db()
      .updateTable('webhook_deliveries')
      .set({ claimed_until: new Date(Date.now() - 1000) })
      .where('id', '=', id!)
      .execute();
    assert.equal(await deliverWebhook(db(), env.ctx, id!), 'succeeded');
    const done = await delivery(id!);
    assert.equal(done.resent, true);
    assert.equal(done.send_count, 2);
    assert.equal(receiver.received.length, 2);
    assert.equal(receiver.received[0]!.id, receiver.received[1]!.id);
    assert.ok(DELIVERY_CLAIM_MS > 10_000, 'a claim outlives the endpoint timeout');
  });

  it('disables an endpoint failing for 5 days and says why; enabling it again clears the reason', async () => {
    await deleteAllWebhooks();
    const { id } = await createWebhook(['item.minted']);
    const [first] = await emit('item.minted', 'disable-check');
    receiver.statuses.push(500);
    assert.equal(await deliverWebhook(db(), env.ctx, first!, NO_WAIT), 'retrying');
    let row = await db().selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.ok(row.failing_since);
    assert.equal(row.enabled, true);
    await db()
      .updateTable('webhooks')
      .set({ failing_since: new Date(Date.now() - 5 * 86_400_000 - 1000) })
      .where('id', '=', id)
      .execute();
    receiver.statuses.push(500);
    assert.equal(await deliverWebhook(db(), env.ctx, first!, NO_WAIT), 'retrying');
    const got = (await env.call('GET', `/v1/webhooks/${id}`, { token: admin() })).json();
    assert.equal(got.enabled, false);
    assert.match(got.disabled_reason, /failing for 5 days.*500/);
    assert.ok(got.disabled_at);
    // What was still queued for it ends without an attempt; nothing new is queued.
    const count = receiver.received.length;
    assert.equal(await deliverWebhook(db(), env.ctx, first!, NO_WAIT), 'abandoned');
    assert.equal(receiver.received.length, count);
    row = await db().selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const enabled = await env.call('PATCH', `/v1/webhooks/${id}`, {
      token: admin(),
      body: { enabled: true },
    });
    assert.equal(enabled.json().enabled, true);
    assert.equal(enabled.json().disabled_reason, null);
    assert.equal(enabled.json().disabled_at, null);
  });

  it('deletes the delivery log past 30 days in maintenance', async () => {
    await deleteAllWebhooks();
    const { id } = await createWebhook(['item.minted']);
    const [old] = await emit('item.minted', 'old');
    const [recent] = await emit('item.minted', 'recent');
    await db()
      .updateTable('webhook_deliveries')
      .set({ created_at: new Date(Date.now() - 31 * 86_400_000) })
      .where('id', '=', old!)
      .execute();
    await db()
      .updateTable('webhook_events')
      .set({ created_at: new Date(Date.now() - 31 * 86_400_000) })
      .where('id', '=', (await delivery(old!)).event_id)
      .execute();
    await maintenanceTask.handler({}, {} as never, env.ctx);
    const left = await db()
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', id)
      .execute();
    assert.deepEqual(
      left.map((r) => r.id),
      [recent],
    );
  });

  it('deletes an endpoint: 204, then 404, and its deliveries end', async () => {
    const { id } = await createWebhook(['item.minted']);
    const response = await env.call('DELETE', `/v1/webhooks/${id}`, { token: admin() });
    assert.equal(response.statusCode, 204);
    assertError(await env.call('GET', `/v1/webhooks/${id}`, { token: admin() }), 404, 'NOT_FOUND');
  });

  async function deleteAllWebhooks() {
    await db().deleteFrom('webhooks').execute();
  }
});

describe('webhook URLs and private addresses (WEBHOOK_ALLOW_PRIVATE_URLS=false)', () => {
  let env: TestEnv;
  let tenant: Tenant;
  let receiver: WebhookReceiver;
  /** What the stub DNS answers for each host name. */
  const dns = new Map<string, string[]>();
  const resolve = async (host: string) => {
    const addresses = dns.get(host);
    if (!addresses) throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  before(async () => {
    env = await setupTest();
    assert.equal(env.ctx.config.webhooks.allowPrivateUrls, false);
    (env.ctx as { webhooks: WebhookSender }).webhooks = createWebhookSender({
      allowPrivateUrls: false,
      resolve,
    });
    tenant = await env.createTenant();
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await receiver?.close();
    await env?.close();
  });

  const post = (url: string) =>
    env.call('POST', '/v1/webhooks', { token: tenant.admin.token, body: { url, events: ['item.minted'] } });

  it('refuses http, literal private addresses and names resolving to them (400)', async () => {
    dns.set('internal.example', ['10.0.0.7']);
    dns.set('mixed.example', ['93.184.216.34', 'fd00::1']);
    dns.set('localhost', ['127.0.0.1', '::1']);
    for (const url of [
      'http://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://172.16.0.1/x',
      'https://192.168.1.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/x',
      'https://0.0.0.0/x',
      'https://[::1]/x',
      'https://[fd12::1]/x',
      'https://[fe80::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://[::ffff:a00:1]/x',
      'https://2130706433/x',
      'https://0x7f.1/x',
      'https://localhost/x',
      'https://internal.example/x',
      'https://mixed.example/x',
      'https://unknown.example/x',
    ])
      assertError(await post(url), 400, 'VALIDATION_FAILED', { fields: ['/url'], what: url });
    dns.set('hooks.example.com', ['93.184.216.34']);
    const created = await post('https://hooks.example.com/x');
    assert.equal(created.statusCode, 201, created.body);
  });

  it('checks the address again at delivery time: a DNS answer turned private is refused, nothing is sent', async () => {
    dns.set('rebind.example', ['93.184.216.34']);
    const created = await post(`https://rebind.example:${receiver.port}/hooks`);
    assert.equal(created.statusCode, 201, created.body);
    dns.set('rebind.example', ['127.0.0.1']);
    const test = await env.call('POST', `/v1/webhooks/${created.json().id}/test`, {
      token: tenant.admin.token,
    });
    assert.equal(await deliverWebhook(env.database.db, env.ctx, test.json().id), 'retrying');
    const row = await env.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', test.json().id)
      .executeTakeFirstOrThrow();
    assert.match(row.last_error!, /private address \(127\.0\.0\.1\)/);
    assert.equal(row.response_status, null);
    assert.equal(receiver.received.length, 0);
  });

  it('connects to the address it checked, with the URL host as Host, and follows no redirect', async () => {
    // Private addresses allowed here so the loopback receiver can stand in for a public host.
    let lookups = 0;
    const sender = createWebhookSender({
      allowPrivateUrls: true,
      resolve: async () => {
        lookups++;
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    const ok = await sender.post({
      url: `http://receiver.example:${receiver.port}/hooks`,
      headers: {},
      body: '{"a":1}',
    });
    assert.deepEqual(ok, { ok: true, status: 200 });
    assert.equal(lookups, 1, 'resolved once, by the check');
    assert.equal(receiver.received.at(-1)!.host, `receiver.example:${receiver.port}`);
    receiver.statuses.push(302);
    const redirect = await sender.post({
      url: `http://receiver.example:${receiver.port}/hooks`,
      headers: {},
      body: '{}',
    });
    assert.equal(redirect.ok, false);
    assert.equal(redirect.status, 302);
  });

  it('gives up on an endpoint that does not answer within the timeout, and on a refused connection', async () => {
    const { createServer } = await import('node:net');
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const sender = createWebhookSender({ allowPrivateUrls: true, timeoutMs: 300 });
    const started = Date.now();
    const slow = await sender.post({ url: `http://127.0.0.1:${port}/`, headers: {}, body: '{}' });
    assert.equal(slow.ok, false);
    assert.equal(slow.status, null);
    assert.ok(Date.now() - started < 2_000);
    silent.close();
    const refused = await sender.post({ url: `http://127.0.0.1:${port}/`, headers: {}, body: '{}' });
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.match(refused.error, /ECONNREFUSED/);
  });
});
