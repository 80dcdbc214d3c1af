import type { RouteOptions } from 'fastify';
import type { Access } from '../access/access.ts';
import type { Permission } from '../access/permissions.ts';

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

/**
 * The routes of an app built by buildApp, in registration order. `app` may be the app or any
 * encapsulated context inside it (a route's own `app`): Fastify derives a context from its
 * parent by prototype, so the chain leads to the app the table belongs to.
 */
export function registeredRoutes(app: object): readonly RegisteredRoute[] {
  for (let instance: object | null = app; instance !== null; instance = Object.getPrototypeOf(instance)) {
    const table = tables.get(instance);
    if (table) return table;
  }
  return [];
}

/** The permissions that guard at least one route of the app (their `config.access`). */
export function permissionsInUse(app: object): ReadonlySet<Permission> {
  const used = new Set<Permission>();
  for (const route of registeredRoutes(app)) {
    if (route.access?.kind === 'permission') used.add(route.access.permission);
  }
  return used;
}
