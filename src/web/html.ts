import type { FastifyReply } from 'fastify';
import { assetUrl } from './assets.ts';
import { SERVICE_NAME } from './site.ts';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Markup that is already safe: produced by `html` (its values escaped), never by concatenation. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/**
 * The one way pages build markup: every interpolated value is escaped unless it is SafeHtml
 * itself (a nested `html` fragment); arrays are joined, null, undefined and false render nothing.
 * Escaping keeps values inside their element or quoted attribute; a `javascript:` URL in an
 * attribute would still be inert, as the Content-Security-Policy allows no inline script.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let markup = strings[0]!;
  values.forEach((value, i) => {
    markup += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(markup);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * A whole document: the service's stylesheet and the page's own scripts (module scripts from
 * /assets/, `scriptUrl`), no inline script and no third-party resource of any kind.
 */
export function htmlDocument(page: { title: string; body: SafeHtml; scripts?: readonly string[] }): SafeHtml {
  const title = page.title === SERVICE_NAME ? SERVICE_NAME : `${page.title} · ${SERVICE_NAME}`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${assetUrl('site.css')}">
${(page.scripts ?? []).map(
  (src) => html`<script type="module" src="${src}"></script>
`,
)}</head>
<body>
${page.body}
</body>
</html>
`;
}

/** Sends a rendered page; pages are personal (claim tokens) unless one says otherwise, so not stored. */
export function sendHtml(reply: FastifyReply, document: SafeHtml, status = 200) {
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  return reply.code(status).type('text/html; charset=utf-8').send(document.markup);
}
