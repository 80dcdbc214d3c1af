import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import { Webhook } from 'standardwebhooks';
import type { Database } from '../../src/db/schema.ts';

/**
 * An organization's endpoint on loopback: it verifies every request with the Standard Webhooks
 * reference implementation (`standardwebhooks`) against the secrets the test gives it, records
 * what came, and answers what the test says (200 unless told otherwise).
 */
export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  host: string | undefined;
  body: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  /** The secrets (of `receiver.secrets`) whose signature the request carries. */
  verifiedWith: string[];
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks` */
  url: string;
  port: number;
  /** The secrets to verify with; a request none of them verifies is still recorded. */
  secrets: string[];
  received: ReceivedWebhook[];
  /** The status of the next answers: each call takes the first; empty means 200. */
  statuses: number[];
  /** Resolves once `count` requests have come, or rejects after the timeout. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const receiver = {
    secrets: [] as string[],
    received,
    statuses: [] as number[],
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push(record(request.headers, body, receiver.secrets));
      response.statusCode = receiver.statuses.shift() ?? 200;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    async waitFor(count: number, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`the receiver got ${received.length} of ${count} webhooks: ${types(received)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

function record(headers: IncomingHttpHeaders, body: string, secrets: string[]): ReceivedWebhook {
  const header = (name: string) => String(headers[name] ?? '');
  const verifiedWith = secrets.filter((secret) => {
    try {
      new Webhook(secret).verify(body, {
        'webhook-id': header('webhook-id'),
        'webhook-timestamp': header('webhook-timestamp'),
        'webhook-signature': header('webhook-signature'),
      });
      return true;
    } catch {
      return false;
    }
  });
  return {
    id: header('webhook-id'),
    timestamp: header('webhook-timestamp'),
    signature: header('webhook-signature'),
    host: headers.host,
    body,
    payload: JSON.parse(body),
    verifiedWith,
  };
}

function types(received: ReceivedWebhook[]): string {
  return received.map((r) => r.payload.type).join(', ');
}

/** The events written for an endpoint about `resourceId`, in the order they happened. */
export async function eventsFor(
  db: Kysely<Database>,
  webhookId: string,
  resourceId: string,
): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
    .select(['webhook_events.type', 'webhook_events.payload'])
    .where('webhook_deliveries.webhook_id', '=', webhookId)
    .where('webhook_deliveries.resource_id', '=', resourceId)
    .orderBy('webhook_deliveries.sequence')
    .execute();
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.payload).data as Record<string, unknown> }));
}
