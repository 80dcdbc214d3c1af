import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { toApiError } from '../http/error-reply.ts';
import type { App, RouteModule } from '../http/types.ts';
import { assetRoutes } from './assets.ts';
import { html, htmlDocument, sendHtml } from './html.ts';

/**
 * Everything a page may load comes from this service: no inline script or style, no third-party
 * script, style or font; images may also be data: URLs or HTTPS (collection artwork lives
 * elsewhere). No framing, no <base>, forms post back here only.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** The headers of every answer; a page may have set a stricter policy of its own. */
function applySecurityHeaders(reply: FastifyReply): void {
  if (!reply.hasHeader('content-security-policy'))
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
}

/**
 * The web scope: server-rendered HTML pages and their static files under /assets/. Every answer,
 * errors included, carries the security headers above; errors are HTML pages, never the API's
 * JSON body. Pages outside /v1 are registered here (app.ts PAGES); a page that belongs to a
 * module (the email claim) lives in that module's `pages/` folder and calls its service.
 */
export function webScope(ctx: AppContext, pages: readonly RouteModule[]) {
  return async function web(scope: App): Promise<void> {
    // No page takes a body yet; the first form adds application/x-www-form-urlencoded here.
    scope.removeAllContentTypeParsers();
    scope.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    scope.addHook('onSend', async (_request, reply, payload) => {
      applySecurityHeaders(reply);
      return payload;
    });
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const apiError = toApiError(error, request);
      if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
      return sendHtmlError(request, reply, apiError.status);
    });
    assetRoutes(scope);
    for (const register of pages) register(scope, ctx);
  };
}

const ERROR_TITLES: Record<number, string> = {
  400: 'This request cannot be answered',
  404: 'Page not found',
  429: 'Too many requests',
  500: 'Something went wrong',
  503: 'Temporarily unavailable',
};

/** An HTML error page (no detail of the cause), with the request id to quote to support. */
export function sendHtmlError(request: FastifyRequest, reply: FastifyReply, status: number) {
  applySecurityHeaders(reply);
  const title = ERROR_TITLES[status] ?? (status >= 500 ? ERROR_TITLES[500]! : ERROR_TITLES[400]!);
  return sendHtml(
    reply,
    htmlDocument({
      title,
      body: html`<main>
<h1>${title}</h1>
<p><a href="/">Home</a></p>
<p class="reference">Reference: ${String(request.id)}</p>
</main>`,
    }),
    status,
  );
}

/** Whether the caller is a browser asking for a page (its navigations accept text/html). */
export function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}
