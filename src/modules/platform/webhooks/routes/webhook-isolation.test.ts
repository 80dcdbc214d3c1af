import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { setupTest, type Tenant, type TestEnv } from '../../../../../test/harness.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../../test/support/webhook-receiver.ts';
import { createWebhookSender, type WebhookSender } from '../../../../providers/webhooks/sender.ts';
import { buildWorker, type Worker } from '../../../../worker.ts';
import { queueMail } from '../../mail/mail.service.ts';
import { emitEvent } from '../webhook-events.service.ts';

/**
 * With the real worker: an endpoint that accepts connections and never answers holds one slot of
 * the webhooks runner at a time (its named queue), so another organization's endpoint is served at
 * once, and the default runner (mail, settlements) is not touched at all. The dead endpoint's
 * timeout is longer than the test, so "served while it hangs" is a fact the test observes (its
 * connection still open, no attempt of it recorded), not a race against a clock.
 */
const NEVER_WITHIN_THE_TEST_MS = 10 * 60_000;
describe('a dead endpoint delays nobody else', () => {
  let env: TestEnv;
  let first: Tenant;
  let second: Tenant;
  let receiver: WebhookReceiver;
  let silent: Server;
  let open = 0;
  const sockets = new Set<Socket>();
  let mostOpen = 0;
  let worker: Worker | undefined;
  before(async () => {
    env = await setupTest({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    (env.ctx as { webhooks: WebhookSender }).webhooks = createWebhookSender({
      allowPrivateUrls: true,
      timeoutMs: NEVER_WITHIN_THE_TEST_MS,
    });
    first = await env.createTenant();
    second = await env.createTenant();
    receiver = await startWebhookReceiver();
    silent = createServer((socket: Socket) => {
      open++;
      mostOpen = Math.max(mostOpen, open);
      sockets.add(socket);
      socket.on('close', () => {
        open--;
        sockets.delete(socket);
      });
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    // The dead endpoint's request would hang until its timeout: cut it so the worker can stop.
    for (const socket of sockets) socket.destroy();
    silent?.close();
    await worker?.stop();
    await receiver?.close();
    await env?.close();
  });

  const subscribe = async (tenant: Tenant, url: string) => {
    const response = await env.call('POST', '/v1/webhooks', {
      token: tenant.admin.token,
      body: { url, events: ['item.minted'] },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().secret as string;
  };
  const emit = (tenant: Tenant, resourceId: string) =>
    env.database.db
      .transaction()
      .execute((tx) =>
        emitEvent(tx, { organizationId: tenant.organizationId, type: 'item.minted', resourceId, data: {} }),
      );

  it("serves another organization's endpoint and the mail while one endpoint hangs", async () => {
    const port = (silent.address() as { port: number }).port;
    await subscribe(first, `http://127.0.0.1:${port}/dead`);
    receiver.secrets = [await subscribe(second, receiver.url)];
    for (const resource of ['a', 'b', 'c', 'd']) await emit(first, resource);
    worker = await buildWorker(env.ctx, env.database, { pollIntervalMs: 50, webhookConcurrency: 2 });
    // The dead endpoint's first attempt is under way before the others are queued.
    while (open === 0) await sleep(20);
    await emit(second, 'x');
    const outbox = await queueMail(env.database.db, {
      organizationId: second.organizationId,
      templateType: 'USER_TEST',
      to: 'someone@example.test',
      variables: { organization_name: 'Second' },
    });
    const [got] = await receiver.waitFor(1, NEVER_WITHIN_THE_TEST_MS);
    assert.deepEqual(got!.verifiedWith, receiver.secrets);
    const mail = await (async () => {
      for (;;) {
        const row = await env.database.db
          .selectFrom('mail_outbox')
          .select('status')
          .where('id', '=', outbox)
          .executeTakeFirstOrThrow();
        if (row.status === 'SENT' || row.status === 'FAILED') return row;
        await sleep(50);
      }
    })();
    assert.equal(mail.status, 'SENT');
    assert.equal(open, 1, "the dead endpoint's request is still hanging");
    const attempted = await env.database.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts'])
      .where('organization_id', '=', first.organizationId)
      .execute();
    assert.equal(
      attempted.filter((d) => d.attempts > 0).length,
      0,
      'the dead endpoint is still on its first',
    );
    assert.equal(mostOpen, 1, 'one connection at a time to the dead endpoint');
  });
});
