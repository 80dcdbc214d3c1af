import type { FastifyError, FastifyRequest, RouteOptions } from 'fastify';
import type { AppContext } from '../context.ts';
import { sendError } from './error-reply.ts';
import type { App, RouteModule } from './types.ts';

/** Where provider webhooks live; a webhook route declares its path below it (`/card-provider/…`). */
export const WEBHOOKS_PREFIX = '/v1/webhooks';

/** Provider events are a few KiB; anything this large is no event of theirs. */
export const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;

/**
 * The webhooks scope: events that card and crypto providers POST to us. Their signatures
 * (Stripe-Signature, X-Hook0-Signature) are computed over the exact bytes sent, so the body is
 * kept raw, a Buffer of any content type (read it with `rawBodyOf`), never parsed and
 * re-serialised. No auth hook and no Idempotency-Key: the provider signs, and the inbox
 * (modules/platform/provider-events) dedupes re-deliveries by event id. Failures answer the API's JSON
 * error body; providers only read the status.
 *
 * A module contributes routes by adding its RouteModule to the list app.ts passes here; each
 * declares `config.access: PROVIDER_SIGNED` and is kept out of the OpenAPI document.
 */
export function webhooksScope(ctx: AppContext, routes: readonly RouteModule[]) {
  return async function webhooks(scope: App): Promise<void> {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.addHook('onRoute', (route: RouteOptions) => {
      if (route.config?.access?.kind !== 'provider')
        throw new Error(`webhook ${route.method} ${route.url} must declare config.access PROVIDER_SIGNED`);
      route.bodyLimit ??= WEBHOOK_BODY_LIMIT_BYTES;
      // For providers, not API clients: the provider's documentation describes the payload.
      route.schema = { ...route.schema, hide: true };
    });
    scope.setErrorHandler((error: FastifyError, request, reply) => sendError(error, request, reply));
    for (const register of routes) register(scope, ctx);
  };
}

/** The body exactly as received (empty when there was none): what a signature is checked on. */
export function rawBodyOf(request: FastifyRequest): Buffer {
  const body = request.body;
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (!Buffer.isBuffer(body)) throw new Error(`route ${request.url} is not in the webhooks scope`);
  return body;
}
