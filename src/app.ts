import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { type FastifyBaseLogger, type FastifyError, LogController } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from './context.ts';
import { pendingMigrations } from './db/migrator.ts';
import type { Authenticate } from './http/access.ts';
import { apiScope, installJsonParser } from './http/api-scope.ts';
import { DEFAULT_BODY_LIMIT_BYTES, sendError, writeClientError } from './http/error-reply.ts';
import { createMetrics } from './http/metrics.ts';
import { addExamples } from './http/openapi-examples.ts';
import { addOverview } from './http/openapi-overview.ts';
import { recordRoute } from './http/route-table.ts';
import { buildSerializerOnFirstUse, validatorOnFirstUse } from './http/schema-compilers.ts';
import type { App } from './http/types.ts';
import { WEBHOOKS_PREFIX, webhooksScope } from './http/webhooks-scope.ts';
import { ApiError } from './lib/errors.ts';
import { uuidv7 } from './lib/ids.ts';
import { authenticate as authenticateCredential } from './modules/platform/auth/auth.service.ts';
import { SERVICE_NAME } from './web/site.ts';
import { sendHtmlError, wantsHtml, webScope } from './web/web-scope.ts';
import { OPERATION_EXAMPLES, PAGES, ROUTES, SHARED_SCHEMAS, WEBHOOK_ROUTES } from './wiring/routes.ts';

const REQUEST_ID = /^[\w.-]{1,128}$/;

/** Limits of the HTTP server; tests shorten them. */
export interface HttpLimits {
  /** Time to receive a whole request, headers and body (Node's requestTimeout). */
  requestTimeoutMs: number;
  /** How often Node checks requests against the timeout. */
  connectionsCheckingIntervalMs: number;
}

const HTTP_LIMITS: HttpLimits = { requestTimeoutMs: 60_000, connectionsCheckingIntervalMs: 5_000 };

/**
 * Fastify with every plugin and route, not listening: tests inject requests into it.
 * Three encapsulated scopes share the root's request ids, validation, metrics and OpenAPI:
 * the /v1 API (JSON), the webhooks (raw bodies) and the web pages (HTML). Operations routes
 * (/healthz, /readyz, /metrics, /openapi.json, /docs) sit at the root.
 */
export async function buildApp(ctx: AppContext, limits: Partial<HttpLimits> = {}): Promise<App> {
  const { requestTimeoutMs, connectionsCheckingIntervalMs } = { ...HTTP_LIMITS, ...limits };
  let closing = false;
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    // One line per request, written by the onResponse hook below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: DEFAULT_BODY_LIMIT_BYTES,
    // A client gets requestTimeoutMs to send a whole request (headers and body) and is answered
    // 408, so a slow sender cannot hold a connection. No connectionTimeout: it would cut a slow
    // handler's socket without any answer; idle keep-alive sockets end at keepAliveTimeout.
    requestTimeout: requestTimeoutMs,
    http: {
      headersTimeout: Math.min(60_000, requestTimeoutMs),
      connectionsCheckingInterval: connectionsCheckingIntervalMs,
    },
    clientErrorHandler: (error, socket) =>
      writeClientError(error, socket, ctx.logger as FastifyBaseLogger, { requestTimeoutMs }),
    // While closing, requests still arriving on open connections get the scope's own error
    // answer (the JSON body, or the HTML page) from the onRequest hook below.
    return503OnClosing: false,
    trustProxy: ctx.config.http.trustProxy,
    // Response serializers compiled on first use (http/schema-compilers.ts); validators too, below.
    schemaController: { compilersFactory: { buildSerializer: buildSerializerOnFirstUse } },
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : uuidv7();
    },
    // Requests refused before routing (a malformed URL, an over-long path parameter) still get
    // the error body (docs/api.md#errors) and their request id.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      return sendError(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  installValidation(app);
  // Unmatched requests read their body as /v1 does (a malformed JSON body is a 400 before the 404).
  installJsonParser(app);
  app.decorateRequest('principal', null);

  app.addHook('onRoute', (route) => recordRoute(app, route));
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${SERVICE_NAME} API`,
        version: '1.0.0',
        // Replaced by the getting-started of http/openapi-overview.ts (transformObject below).
        description: '',
      },
      servers: [{ url: ctx.config.http.publicBaseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An access token or an API key' },
          apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        },
      },
    },
    // The overview and every operation's example are added to the built document, not to routes.
    transformObject: (document) =>
      'openapiObject' in document
        ? addOverview(addExamples(document.openapiObject, OPERATION_EXAMPLES))
        : document.swaggerObject,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `Schema${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });

  const metrics = createMetrics(ctx.db);
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) throw new ApiError('UNAVAILABLE', 'the service is shutting down; retry on another instance');
  });
  // One line per request, at its end (Fastify's own logging, disabled above, writes two). Its
  // fields are fixed: the req serializer's (method, URL with its secrets redacted, host, address,
  // port), the status and the time, nothing free-form; so it skips the logger's redaction paths,
  // which cost every other line about 20 µs (src/lib/logger.ts).
  const requestLog = ctx.logger.child({}, { redact: { paths: [] } });
  app.addHook('onResponse', async (request, reply) => {
    requestLog.info(
      {
        reqId: request.id,
        req: request,
        res: { statusCode: reply.statusCode },
        responseTime: reply.elapsedTime,
      },
      'request completed',
    );
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => sendError(error, request, reply));
  // One handler for every unmatched path: /v1 (API and webhooks) answers the JSON error body;
  // elsewhere a browser gets the web scope's HTML page and any other client the JSON body.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (!/^\/v1(\/|$)/.test(path)) {
      reply.header('vary', 'accept');
      if (wantsHtml(request)) return sendHtmlError(request, reply, 404);
    }
    return sendError(new ApiError('NOT_FOUND', `no route ${request.method} ${path}`), request, reply);
  });

  registerOperationsRoutes(app, ctx, metrics.registry);
  // The auth module resolves credentials; the API scope only runs the check (http/ knows no module).
  const authenticate: Authenticate = (credential) => authenticateCredential(ctx.db, ctx, credential);
  await app.register(apiScope(ctx, ROUTES, SHARED_SCHEMAS, authenticate));
  await app.register(webhooksScope(ctx, WEBHOOK_ROUTES), { prefix: WEBHOOKS_PREFIX });
  await app.register(webScope(ctx, PAGES));
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
 * Bodies are validated strictly (no type coercion); query strings and paths coerce from text.
 * A body is first checked up to its first error; only a body of at most
 * FULLY_CHECKED_BODY_VALUES values is then checked again for every error (the error body lists
 * them all), so no body makes the validator collect a million errors or compare a huge array's items
 * pairwise (`uniqueItems`) before its `maxItems` refuses it.
 */
function installValidation(app: App) {
  const common = { useDefaults: true, removeAdditional: false, strict: false } as const;
  const firstErrorAjv = addFormats.default(new Ajv({ ...common, allErrors: false, coerceTypes: false }));
  const bodyAjv = addFormats.default(new Ajv({ ...common, allErrors: true, coerceTypes: false }));
  const textAjv = addFormats.default(new Ajv({ ...common, allErrors: true, coerceTypes: 'array' }));
  for (const schema of SHARED_SCHEMAS) {
    firstErrorAjv.addSchema(schema);
    bodyAjv.addSchema(schema);
    textAjv.addSchema(schema);
  }
  app.setValidatorCompiler(({ schema, httpPart }) =>
    validatorOnFirstUse(() =>
      httpPart === 'body'
        ? boundedBodyValidator(firstErrorAjv.compile(schema), () => bodyAjv.compile(schema))
        : textAjv.compile(schema),
    ),
  );
}

const FULLY_CHECKED_BODY_VALUES = 1000;

interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** The every-error validator is compiled on a body's first failure: most routes never need it. */
function boundedBodyValidator(
  firstError: ValidateFunction,
  compileAllErrors: () => ValidateFunction,
): Validator {
  let allErrorsValidator: ValidateFunction | undefined;
  const validate: Validator = (data) => {
    validate.errors = null;
    if (firstError(data)) return true;
    if (countValues(data, FULLY_CHECKED_BODY_VALUES) <= FULLY_CHECKED_BODY_VALUES) {
      allErrorsValidator ??= compileAllErrors();
      const allErrors = allErrorsValidator;
      validate.errors = allErrors(data) ? firstError.errors : allErrors.errors;
      return false;
    }
    validate.errors = [
      ...(firstError.errors ?? []),
      {
        instancePath: '',
        schemaPath: '#',
        keyword: 'bound',
        params: {},
        message: `not checked further: the body has more than ${FULLY_CHECKED_BODY_VALUES} values`,
      },
    ];
    return false;
  };
  return validate;
}

/** The number of values (every key's and item's) in a JSON value, counted up to just over `limit`. */
function countValues(data: unknown, limit: number): number {
  let count = 0;
  const pending: unknown[] = [data];
  while (pending.length > 0 && count <= limit) {
    const value = pending.pop();
    count++;
    if (value !== null && typeof value === 'object')
      for (const inner of Object.values(value)) {
        if (count + pending.length > limit) return limit + 1;
        pending.push(inner);
      }
  }
  return count + pending.length;
}
