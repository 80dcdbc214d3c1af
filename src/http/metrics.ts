import { sql } from 'kysely';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Executor } from '../db/executor.ts';

/** Prometheus metrics of one app instance (its own registry, so tests can build many apps). */
export interface Metrics {
  readonly registry: Registry;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly latency: Histogram<'method' | 'route'>;
}

export function createMetrics(db: Executor): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency, by route template',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  new Gauge({
    name: 'job_queue_depth',
    help: 'Background jobs waiting or running, by task',
    labelNames: ['task'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const { rows } = await sql<{ task: string; n: string }>`
        SELECT task_identifier AS task, count(*) AS n FROM graphile_worker.jobs GROUP BY task_identifier`.execute(
        db,
      );
      for (const row of rows) this.set({ task: row.task }, Number(row.n));
    },
  });
  new Gauge({
    name: 'mail_outbox_messages',
    help: 'Outgoing mail by delivery status',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await db
        .selectFrom('mail_outbox')
        .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
        .groupBy('status')
        .execute();
      for (const row of rows) this.set({ status: row.status }, Number(row.n));
    },
  });
  return { registry, requests, latency };
}
