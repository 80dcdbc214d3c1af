import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyError, RouteOptions } from 'fastify';
import { CLIENT_TOKEN_HEADER } from '../access/access.ts';
import type { AppContext } from '../context.ts';
import { ApiError, errorResponses, type FieldError } from '../lib/errors.ts';
import { type Authenticate, authorize } from './access.ts';
import { sendError } from './error-reply.ts';
import { beginIdempotentRequest, finishIdempotentRequest } from './idempotency.ts';
import { signCursor, verifyCursor } from './pagination.ts';
import { IdempotencyKeyHeader } from './schemas.ts';
import type { App, RouteModule } from './types.ts';

/**
 * The /v1 API scope (docs/api.md): JSON bodies only, the JSON error body, the auth hook, the U+0000
 * query check and Idempotency-Key. An encapsulated child context, so none of this reaches the
 * webhooks scope (raw bodies, provider signatures) or the web scope (HTML). It has no URL
 * prefix because every operation declares its whole path (`/v1/...`), which the OpenAPI document
 * and the security suite read as they are. `schemas` are the shared, referenced ones;
 * `authenticate` resolves credentials (the auth module's, handed in by the app).
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    /** Narrows the scope of an anonymous caller's Idempotency-Key (default: its address). */
    idempotencyScope?: (request: FastifyRequest) => string | undefined;
  }
}

export function apiScope(
  ctx: AppContext,
  routes: readonly RouteModule[],
  schemas: readonly TSchema[],
  authenticate: Authenticate,
) {
  return async function api(scope: App): Promise<void> {
    // Added here, not at the root: a context that added schemas builds a fresh serializer per
    // route, and fast-json-stringify's compiler drops a shared schema from the one it reuses once
    // a route answers with that schema itself (POST /v1/auth/login/mfa answers Session).
    // Adding schemas also makes the context build Fastify's default validator: keep the app's.
    const validatorCompiler = scope.validatorCompiler;
    for (const schema of schemas) scope.addSchema(schema);
    if (validatorCompiler) scope.setValidatorCompiler(validatorCompiler);
    installJsonParser(scope);
    scope.addHook('onRoute', completeRouteSchema);
    scope.addHook('onRequest', async (request) => {
      await authorize(authenticate, request);
    });
    // List cursors are signed (pagination.ts signCursor): verified before the query schema runs,
    // the route sees the payload; a list response's cursor is signed on its way out.
    scope.addHook('preValidation', async (request) => {
      if (!takesCursor(request.routeOptions.schema)) return;
      const query = request.query as Record<string, unknown> | undefined;
      if (typeof query?.cursor === 'string')
        query.cursor = verifyCursor(ctx.keyring.cursorSigningKey, query.cursor);
    });
    scope.addHook('preSerialization', async (request, _reply, payload: unknown) => {
      if (!takesCursor(request.routeOptions.schema) || !isPage(payload)) return payload;
      return { ...payload, cursor: signCursor(ctx.keyring.cursorSigningKey, payload.cursor) };
    });
    // PostgreSQL text and jsonb cannot hold U+0000: refused up front, never a 500 from the database.
    scope.addHook('preValidation', async (request) => {
      const at = nulCharacterPath(request.query, '');
      if (at !== undefined)
        throw new ApiError('VALIDATION_FAILED', 'the query string must not contain U+0000', {
          fields: [{ path: `querystring:${at}`, message: 'must not contain U+0000' }],
        });
    });
    // ajv's coerceTypes takes `0x10`, `1e1`, `+5` and ` 5` as numbers: a number in a query string
    // or a path is a plain decimal, checked before the schema coerces it.
    scope.addHook('preValidation', async (request) => {
      const schema = request.routeOptions.schema;
      const problem =
        nonDecimalNumber(schema?.querystring, request.query, 'querystring') ??
        nonDecimalNumber(schema?.params, request.params, 'params');
      if (problem)
        throw new ApiError('VALIDATION_FAILED', `the ${problem.part} is invalid`, { fields: [problem] });
    });
    scope.addHook('preHandler', async (request, reply) => {
      const key = request.headers['idempotency-key'];
      if (request.method !== 'POST' || typeof key !== 'string') return;
      // Anonymous callers (log in, public purchases) are told apart by address, never pooled; a
      // route may narrow its keys further (a purchase's to its listing).
      const routeScope = request.routeOptions.config.idempotencyScope?.(request);
      const claimScope = request.principal
        ? `org:${request.principal.organizationId}`
        : `public:${routeScope ?? request.ip}`;
      if (await beginIdempotentRequest(ctx.db, ctx.keyring, request, reply, claimScope, key)) return reply;
    });
    scope.addHook('onSend', async (request, reply, payload) => {
      const claim = request.idempotencyClaim;
      if (claim) {
        request.idempotencyClaim = undefined;
        await finishIdempotentRequest(
          ctx.db,
          ctx.keyring,
          claim,
          reply.statusCode,
          payload,
          reply.getHeader('content-type')?.toString(),
        );
      }
      return payload;
    });
    scope.setErrorHandler((error: FastifyError, request, reply) => sendError(error, request, reply));
    for (const register of routes) register(scope, ctx);
  };
}

/** A list operation: its query string takes a `cursor` (pagination.ts listQueryProperties). */
function takesCursor(schema: { querystring?: unknown } | undefined): boolean {
  const query = schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  return query?.properties?.cursor !== undefined;
}

function isPage(payload: unknown): payload is { cursor: string; has_more: boolean } {
  return (
    typeof payload === 'object' &&
    payload !== null &&
    'has_more' in payload &&
    'cursor' in payload &&
    typeof payload.cursor === 'string'
  );
}

/**
 * Every route gets its error responses, security and Idempotency-Key header declared from its
 * access rule, so the OpenAPI document and the behaviour cannot drift apart.
 */
function completeRouteSchema(route: RouteOptions): void {
  const url = route.url;
  if (!url.startsWith('/v1/'))
    throw new Error(`route ${route.method} ${url} is in the /v1 scope but not under /v1/`);
  const access = route.config?.access;
  if (!access) throw new Error(`route ${route.method} ${url} declares no config.access`);
  if (access.kind === 'provider')
    throw new Error(`route ${route.method} ${url} is provider-signed: it belongs in the webhooks scope`);
  route.schema ??= {};
  const schema = route.schema;
  const statuses: number[] = [];
  switch (access.kind) {
    case 'user':
    case 'permission':
      statuses.push(401, 403);
      schema.security = [{ bearerAuth: [] }, { apiKeyAuth: [] }];
      break;
    case 'client_token': {
      // The buyer's secret is a header of the operation, documented and required there.
      statuses.push(401);
      schema.security = [];
      const headers = (schema.headers as TSchema | undefined) ?? Type.Object({});
      schema.headers = Type.Object({
        ...headers.properties,
        [CLIENT_TOKEN_HEADER]: Type.String({
          minLength: 1,
          maxLength: 128,
          description: "The purchase intent's client_token, returned when the buyer created it",
        }),
      });
      break;
    }
    case 'public':
    case 'claim_token':
      schema.security = [];
      break;
  }
  if (url.includes(':')) statuses.push(404);
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (methods.includes('POST')) {
    statuses.push(409, 429);
    const headers = (schema.headers as TSchema | undefined) ?? Type.Object({});
    schema.headers = Type.Object({
      ...headers.properties,
      'idempotency-key': Type.Optional({
        ...IdempotencyKeyHeader,
        description:
          'A retry with the same key and body replays the first response (docs/api.md#idempotency)',
      }),
    });
  }
  schema.response = { ...errorResponses(...statuses), ...(schema.response as object | undefined) };
}

/**
 * JSON only (docs/api.md#conventions): any other media type, text/plain included, is refused. An
 * empty body (common on DELETE) is no body rather than an error. A `__proto__` key is refused, as
 * Fastify's own parser does, so no body can reach code that would turn it into a prototype.
 */
export function installJsonParser(app: App) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text, (key, value) => {
        if (key === '__proto__') throw new ProtoKeyError();
        return value;
      });
    } catch (error) {
      const detail =
        error instanceof ProtoKeyError
          ? 'the body must not have a __proto__ key'
          : 'the body is not valid JSON';
      return done(new ApiError('VALIDATION_FAILED', detail), undefined);
    }
    // JSON spells U+0000 only as an escape; the walk runs when the text has one.
    const at = text.includes('\\u0000') ? nulCharacterPath(parsed, '') : undefined;
    if (at !== undefined)
      return done(
        new ApiError('VALIDATION_FAILED', 'the body must not contain U+0000', {
          fields: [{ path: at, message: 'must not contain U+0000 (in a key or a string)' }],
        }),
        undefined,
      );
    done(null, parsed);
  });
}

class ProtoKeyError extends Error {}

/** The JSON pointer of the first key or string holding U+0000, if any. */
function nulCharacterPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const at = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (key.includes('\u0000')) return at;
    const found = nulCharacterPath(inner, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

const DECIMAL_INTEGER = /^(0|-?[1-9][0-9]*)$/;
const DECIMAL_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * The first text value of `values` whose property `schema` declares an integer or a number (in
 * a union too) that is not written as a plain decimal, as a field of the error.
 */
function nonDecimalNumber(
  schema: unknown,
  values: unknown,
  part: 'querystring' | 'params',
): (FieldError & { part: string }) | undefined {
  const properties = (schema as TSchema | undefined)?.properties as Record<string, TSchema> | undefined;
  if (!properties || values === null || typeof values !== 'object') return undefined;
  for (const [name, raw] of Object.entries(values)) {
    const property = properties[name];
    if (!property) continue;
    const types = numericTypes(property);
    if (types.size === 0) continue;
    const pattern = types.has('number') ? DECIMAL_NUMBER : DECIMAL_INTEGER;
    for (const text of Array.isArray(raw) ? raw : [raw]) {
      if (typeof text === 'string' && !pattern.test(text))
        return {
          part,
          path: `${part}:/${name}`,
          message: types.has('number') ? 'must be a decimal number' : 'must be a decimal integer',
        };
    }
  }
  return undefined;
}

/** `integer` and `number` among the types a schema (its union members, its array items) takes. */
function numericTypes(schema: TSchema): Set<string> {
  const found = new Set<string>();
  const visit = (s: TSchema | undefined) => {
    if (!s || typeof s !== 'object') return;
    const types = Array.isArray(s.type) ? s.type : [s.type];
    for (const type of types) if (type === 'integer' || type === 'number') found.add(type);
    for (const member of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) visit(member);
    if (s.type === 'array') visit(s.items);
  };
  visit(schema);
  return found;
}
