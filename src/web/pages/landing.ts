import type { App } from '../../http/types.ts';
import { html, htmlDocument, sendHtml } from '../html.ts';
import { SERVICE_NAME } from '../site.ts';

/** `GET /`: what this service is, and where its API is described. */
export function landingPage(app: App): void {
  app.get('/', async (_request, reply) =>
    sendHtml(
      reply,
      htmlDocument({
        title: SERVICE_NAME,
        body: html`<main>
<h1>${SERVICE_NAME}</h1>
<p>Issue and sell NFTs: collections, items, mint and transfer, email claims and sales.</p>
<ul class="links">
<li><a href="/docs">API reference</a></li>
<li><a href="/openapi.json">OpenAPI document</a></li>
</ul>
</main>`,
      }),
    ),
  );
}
