import pg from 'pg';
import type { Logger } from 'pino';
import { coalescing } from '../lib/concurrency.ts';

/**
 * One connection of its own that LISTENs on a channel (never a pool's: a pooled connection is
 * shared and may be closed while idle). `onNotification` gets each payload in commit order;
 * `onReset` is called whenever notifications may have been missed: the connection is lost, or a
 * new one starts listening. A lost connection is replaced, after a back-off of 100 ms doubling
 * to 5 s; a ping every few seconds finds a connection that died without closing.
 */
export interface Listener {
  /** True while LISTEN is in effect on a live connection. */
  readonly connected: boolean;
  /** The backend process id of the listening connection (tests terminate it). */
  readonly pid: number | undefined;
  /**
   * Resolves once every notification committed before the call has been handed to
   * `onNotification` (a round trip on the listening connection: PostgreSQL sends pending
   * notifications before a query's answer); at once when not connected.
   */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface ListenerOptions {
  connectionString: string;
  channel: string;
  onNotification(payload: string): void;
  onReset(): void;
  logger: Logger;
  pingMs?: number;
}

/** Starts listening; resolves after the first attempt to connect, whether or not it succeeded. */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const { channel, logger } = options;
  let client: pg.Client | undefined;
  let connected = false;
  let closed = false;
  let backoffMs = 100;
  let retry: NodeJS.Timeout | undefined;

  const lost = (lostClient: pg.Client, error?: unknown) => {
    if (lostClient !== client) return;
    client = undefined;
    connected = false;
    options.onReset();
    lostClient.end().catch(() => {});
    if (closed) return;
    logger.warn({ err: error, channel }, 'LISTEN connection lost: cache cleared, reconnecting');
    retry = setTimeout(connect, backoffMs);
    backoffMs = Math.min(backoffMs * 2, 5000);
  };

  const connect = async (): Promise<void> => {
    if (closed) return;
    const next = new pg.Client({ connectionString: options.connectionString, keepAlive: true });
    client = next;
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next));
    next.on('notification', (message) => {
      if (next === client && message.channel === channel) options.onNotification(message.payload ?? '');
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (next !== client) return;
      connected = true;
      backoffMs = 100;
      // Whatever was read before LISTEN took effect may have missed a change.
      options.onReset();
    } catch (error) {
      lost(next, error);
    }
  };

  // A round trip on the listening connection, for the pings and every sync: one query at a time
  // on it (a connection takes one), each caller answered by a round trip that started after it.
  const roundTrip = coalescing(async (_: 'ping') => {
    const current = client;
    if (!current || !connected) return;
    const timeout = setTimeout(() => lost(current, new Error('LISTEN connection ping timed out')), 3000);
    try {
      await current.query('SELECT 1');
    } catch (error) {
      lost(current, error);
    } finally {
      clearTimeout(timeout);
    }
  });
  const ping = setInterval(() => void roundTrip('ping'), options.pingMs ?? 5000);
  ping.unref();

  await connect();
  return {
    get connected() {
      return connected;
    },
    get pid() {
      return connected ? (client as unknown as { processID?: number } | undefined)?.processID : undefined;
    },
    sync() {
      return roundTrip('ping');
    },
    async close() {
      closed = true;
      clearInterval(ping);
      clearTimeout(retry);
      const current = client;
      client = undefined;
      connected = false;
      options.onReset();
      await current?.end().catch(() => {});
    },
  };
}
