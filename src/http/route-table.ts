import type { RouteOptions } from 'fastify';
import type { Access } from '../access/access.ts';

/**
 * Every route an app registered, with its declared access, recorded from the onRoute hook so that
 * cross-cutting tests (the shared security suite, the OpenAPI checks) cover new routes without
 * being told about them.
 */
export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  /** Undefined outside /v1: operations routes (/healthz, /docs…) and web pages. */
  readonly access: Access | undefined;
  readonly operationId: string | undefined;
  /** Path parameter names, in order (`/v1/users/:user_id` → `['user_id']`). */
  readonly params: readonly string[];
  readonly hasBody: boolean;
}

const tables = new WeakMap<object, RegisteredRoute[]>();

/** Records a route of `app`; Fastify's automatic HEAD twin of a GET route is left out. */
export function recordRoute(app: object, route: RouteOptions): void {
  let table = tables.get(app);
  if (!table) {
    table = [];
    tables.set(app, table);
  }
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const schema = route.schema as { operationId?: string; body?: unknown } | undefined;
  for (const method of methods) {
    if (method === 'HEAD' && table.some((r) => r.method === 'GET' && r.url === route.url)) continue;
    table.push({
      method,
      url: route.url,
      access: route.config?.access,
      operationId: schema?.operationId,
      params: [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1]!),
      hasBody: schema?.body !== undefined,
    });
  }
}

/** The routes of an app built by buildApp, in registration order. */
export function registeredRoutes(app: object): readonly RegisteredRoute[] {
  return tables.get(app) ?? [];
}
