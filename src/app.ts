import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type TSchema, Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
  type RouteOptions,
} from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from './context.ts';
import { pendingMigrations } from './db/migrator.ts';
import { type Authenticate, authorize } from './http/access.ts';
import { ApiError, ErrorBody, errorResponses, type FieldError } from './http/errors.ts';
import { beginIdempotentRequest, finishIdempotentRequest } from './http/idempotency.ts';
import { createMetrics } from './http/metrics.ts';
import { recordRoute } from './http/route-table.ts';
import { IdempotencyKeyHeader } from './http/schemas.ts';
import type { App } from './http/types.ts';
import { uuidv7 } from './lib/ids.ts';
import { ApiKey } from './modules/api-keys/api-keys.schemas.ts';
import { apiKeyRoutes } from './modules/api-keys/routes/index.ts';
import { MfaChallenge, Session } from './modules/auth/auth.schemas.ts';
import { authenticate as authenticateCredential } from './modules/auth/auth.service.ts';
import { authRoutes } from './modules/auth/routes/index.ts';
import { collectionRoutes, collectionSchemas } from './modules/collections/routes/index.ts';
import {
  contractFunctionRoutes,
  contractFunctionSchemas,
} from './modules/contract-functions/routes/index.ts';
import { contractRoutes } from './modules/contracts/routes/index.ts';
import { itemTypeRoutes, itemTypeSchemas } from './modules/item-types/routes/index.ts';
import { itemRoutes, itemSchemas } from './modules/items/routes/index.ts';
import { mailRoutes } from './modules/mail/routes/index.ts';
import { metadataRoutes, metadataSchemas } from './modules/metadata/routes/index.ts';
import { mintRequestRoutes, mintRequestSchemas } from './modules/mint-requests/routes/index.ts';
import { networkRoutes } from './modules/networks/routes/index.ts';
import { Organization, PayoutConfig } from './modules/organizations/organizations.schemas.ts';
import { organizationRoutes } from './modules/organizations/routes/index.ts';
import { roleRoutes } from './modules/roles/routes/index.ts';
import { transactionRoutes } from './modules/transactions/routes/index.ts';
import { Transaction } from './modules/transactions/transactions.schemas.ts';
import { transferRequestRoutes, transferRequestSchemas } from './modules/transfer-requests/routes/index.ts';
import { userRoutes } from './modules/users/routes/index.ts';
import { User } from './modules/users/users.schemas.ts';
import { walletRoutes } from './modules/wallets/routes/index.ts';

/** Schemas shared by reference across operations; each becomes a named OpenAPI component. */
const SHARED_SCHEMAS: TSchema[] = [
  ErrorBody,
  User,
  Organization,
  PayoutConfig,
  Session,
  MfaChallenge,
  ApiKey,
  Transaction,
  ...collectionSchemas,
  ...contractFunctionSchemas,
  ...itemTypeSchemas,
  ...itemSchemas,
  ...mintRequestSchemas,
  ...transferRequestSchemas,
  ...metadataSchemas,
];

const ROUTES = [
  ...authRoutes,
  ...userRoutes,
  ...apiKeyRoutes,
  ...roleRoutes,
  ...organizationRoutes,
  ...walletRoutes,
  ...networkRoutes,
  ...mailRoutes,
  ...transactionRoutes,
  ...contractRoutes,
  ...collectionRoutes,
  ...contractFunctionRoutes,
  ...itemTypeRoutes,
  ...itemRoutes,
  ...mintRequestRoutes,
  ...transferRequestRoutes,
  ...metadataRoutes,
];

const REQUEST_ID = /^[\w.-]{1,128}$/;
const BODY_LIMIT_BYTES = 1024 * 1024;

/** Fastify with every plugin and route, not listening: tests inject requests into it. */
export async function buildApp(ctx: AppContext): Promise<App> {
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: ctx.config.http.trustProxy,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : uuidv7();
    },
    // Requests refused before routing (a malformed URL, an over-long path parameter) still get
    // the error body of API.md §1 and their request id.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      return sendError(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  installValidation(app);
  installJsonParser(app);
  app.decorateRequest('principal', null);
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  app.addHook('onRoute', (route) => {
    completeRouteSchema(route);
    recordRoute(app, route);
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Token Issuance Service API',
        version: '1.0.0',
        description:
          'Issue and sell NFTs: collections, items, mint and transfer, email claims, sales, email.',
      },
      servers: [{ url: ctx.config.http.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An access token or an API key' },
          apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `Schema${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });

  const metrics = createMetrics(ctx.db);
  const authenticate: Authenticate = (credential) => authenticateCredential(ctx.db, ctx, credential);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    await authorize(authenticate, request);
  });
  // PostgreSQL text and jsonb cannot hold U+0000: refused up front, never a 500 from the database.
  app.addHook('preValidation', async (request) => {
    const at = nulCharacterPath(request.query, '');
    if (at !== undefined)
      throw new ApiError('VALIDATION_FAILED', 'the query string must not contain U+0000', {
        fields: [{ path: `querystring:${at}`, message: 'must not contain U+0000' }],
      });
  });
  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || typeof key !== 'string') return;
    // Anonymous callers (log in, public purchases) are told apart by address, never pooled.
    const scope = request.principal ? `org:${request.principal.organizationId}` : `public:${request.ip}`;
    if (await beginIdempotentRequest(ctx.db, ctx.keyring, request, reply, scope, key)) return reply;
  });
  app.addHook('onSend', async (request, reply, payload) => {
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
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendError(
      new ApiError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`),
      request,
      reply,
    ),
  );

  registerOperationsRoutes(app, ctx, metrics.registry);
  for (const register of ROUTES) register(app, ctx);
  return app;
}

function registerOperationsRoutes(
  app: App,
  ctx: AppContext,
  registry: ReturnType<typeof createMetrics>['registry'],
) {
  const hidden = { hide: true };
  app.get('/healthz', { schema: hidden }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: hidden }, async (_request, reply) => {
    try {
      await sql`SELECT 1`.execute(ctx.db);
      const pending = await pendingMigrations(ctx.db);
      if (pending.length > 0) throw new ApiError('UNAVAILABLE', `migrations pending: ${pending.join(', ')}`);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError('UNAVAILABLE', 'the database does not answer');
    }
    return reply.send({ status: 'ready' });
  });
  app.get('/metrics', { schema: hidden }, async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  app.get('/openapi.json', { schema: hidden }, async () => app.swagger());
}

/**
 * Every route gets its error responses, security and Idempotency-Key header declared from its
 * access rule, so the OpenAPI document and the behaviour cannot drift apart.
 */
function completeRouteSchema(route: RouteOptions): void {
  const url = route.url;
  if (!url.startsWith('/v1/')) return;
  const access = route.config?.access;
  if (!access) throw new Error(`route ${route.method} ${url} declares no config.access`);
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
        'x-client-token': Type.String({
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
        description: 'Replays the first response (API.md §1)',
      }),
    });
  }
  schema.response = { ...errorResponses(...statuses), ...(schema.response as object | undefined) };
}

/** Bodies are validated strictly (no type coercion); query strings and paths coerce from text. */
function installValidation(app: App) {
  const common = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false } as const;
  const bodyAjv = addFormats.default(new Ajv({ ...common, coerceTypes: false }));
  const textAjv = addFormats.default(new Ajv({ ...common, coerceTypes: 'array' }));
  for (const schema of SHARED_SCHEMAS) {
    bodyAjv.addSchema(schema);
    textAjv.addSchema(schema);
  }
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema),
  );
}

/**
 * JSON only (API.md §1): any other media type, text/plain included, is refused. An empty body
 * (common on DELETE) is no body rather than an error. A `__proto__` key is refused, as Fastify's
 * own parser does, so no body can reach code that would turn it into a prototype.
 */
function installJsonParser(app: App) {
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

function sendError(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) {
  const apiError = toApiError(error, request);
  if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
  if (apiError.options.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(apiError.options.retryAfterSeconds));
  const body: ErrorBody = {
    error: {
      code: apiError.code,
      detail: apiError.detail,
      request_id: String(request.id),
      ...(apiError.options.fields && { fields: apiError.options.fields }),
    },
  };
  return reply.code(apiError.status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', '57P01', '57P03', '53300', '08006', '08001']);
// pg-pool's error when no connection frees up within connectionTimeoutMillis.
const POOL_TIMEOUT = /timeout exceeded when trying to connect/i;

function toApiError(error: FastifyError | ApiError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    const part = error.validationContext ?? 'body';
    const fields: FieldError[] = error.validation.map((v) => {
      const params = v.params as Record<string, unknown>;
      let path = v.instancePath;
      if (typeof params.missingProperty === 'string') path += `/${params.missingProperty}`;
      if (typeof params.additionalProperty === 'string') path += `/${params.additionalProperty}`;
      const message =
        typeof params.additionalProperty === 'string' ? 'is not a known field' : (v.message ?? 'is invalid');
      return { path: part === 'body' ? path || '/' : `${part}:${path || '/'}`, message };
    });
    return new ApiError('VALIDATION_FAILED', `the ${part} is invalid`, { fields });
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ApiError(
      'VALIDATION_FAILED',
      `the body is larger than ${request.routeOptions.bodyLimit ?? BODY_LIMIT_BYTES} bytes`,
    );
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError('VALIDATION_FAILED', 'the body must be application/json');
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('VALIDATION_FAILED', error.message);
  }
  if (UNAVAILABLE_CODES.has(String(error.code)) || POOL_TIMEOUT.test(error.message)) {
    return new ApiError('UNAVAILABLE', 'the database is not available');
  }
  return new ApiError('INTERNAL', 'internal error');
}
