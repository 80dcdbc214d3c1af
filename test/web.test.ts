import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/types.ts';
import { escapeHtml, html, htmlDocument } from '../src/web/html.ts';
import { SERVICE_NAME } from '../src/web/site.ts';
import { webScope } from '../src/web/web-scope.ts';
import { setupTest, type TestEnv } from './harness.ts';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** The web scope's headers: a strict CSP, no sniffing, no referrer. */
function assertWebHeaders(response: LightMyRequestResponse): void {
  const csp = String(response.headers['content-security-policy']);
  const directives = Object.fromEntries(
    csp.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name, values.join(' ')];
    }),
  );
  assert.deepEqual(directives, {
    'default-src': "'none'",
    'script-src': "'self'",
    'style-src': "'self'",
    'img-src': "'self' data: https:",
    'font-src': "'self'",
    'connect-src': "'self'",
    'frame-ancestors': "'none'",
    'base-uri': "'none'",
    'form-action': "'self'",
  });
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  assert.equal(response.headers['referrer-policy'], 'no-referrer');
}

function assertHtml(response: LightMyRequestResponse, status: number): void {
  assert.equal(response.statusCode, status, response.body);
  assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
  assert.match(response.body, /^<!doctype html>/);
  assertWebHeaders(response);
}

/** Every URL a page points at is on this service: nothing from a CDN or any third party. */
function assertNoThirdPartyUrl(body: string): void {
  const urls = [...body.matchAll(/\b(?:src|href|action)="([^"]*)"/g)].map((m) => m[1]!);
  assert.ok(urls.length > 0);
  for (const url of urls) assert.match(url, /^\/(?!\/)/, `${url} is not a path on this service`);
}

describe('the web scope', () => {
  let env: TestEnv;
  before(async () => {
    env = await setupTest();
  });
  after(() => env.close());

  it('serves the landing page at / as HTML with the security headers', async () => {
    const response = await env.call('GET', '/', { headers: BROWSER });
    assertHtml(response, 200);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.ok(response.body.includes(`<title>${SERVICE_NAME}</title>`), response.body);
    assert.ok(response.body.includes(`<h1>${SERVICE_NAME}</h1>`));
    assert.match(response.body, /<a href="\/docs">/);
    assert.match(response.body, /<a href="\/openapi.json">/);
    assertNoThirdPartyUrl(response.body);
  });

  it('links a fingerprinted stylesheet, served with its content type and cached for good', async () => {
    const page = await env.call('GET', '/');
    const href = /<link rel="stylesheet" href="([^"]+)">/.exec(page.body)?.[1];
    assert.match(String(href), /^\/assets\/site\.[0-9a-f]{16}\.css$/);
    const css = await env.call('GET', String(href));
    assert.equal(css.statusCode, 200);
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(css.headers['cache-control'], 'public, max-age=31536000, immutable');
    assertWebHeaders(css);
    const source = readFileSync(path.resolve(import.meta.dirname, '../src/web/assets/site.css'));
    assert.ok(css.rawPayload.equals(source));
  });

  it('revalidates an asset asked for by its plain name, answering 304 to its ETag', async () => {
    const plain = await env.call('GET', '/assets/site.css');
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['cache-control'], 'no-cache');
    const etag = String(plain.headers.etag);
    assert.match(etag, /^"[0-9a-f]{16}"$/);
    const again = await env.call('GET', '/assets/site.css', { headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  it('answers an unknown asset with the HTML 404 page', async () => {
    for (const url of ['/assets/nope.css', '/assets/deep/er/nope.js', '/assets/%2e%2e%2fpackage.json']) {
      const response = await env.call('GET', url);
      assertHtml(response, 404);
      assert.match(response.body, /Page not found/);
    }
    // A path that leaves /assets/ is no asset of the scope, whatever the folder holds.
    const outside = await env.call('GET', '/assets/../package.json', { headers: BROWSER });
    assertHtml(outside, 404);
  });

  it('answers an unknown path with the HTML 404 page to a browser, and an unknown /v1 path with the JSON 404', async () => {
    const page = await env.call('GET', '/claim/nowhere', { headers: BROWSER });
    assertHtml(page, 404);
    assert.ok(page.body.includes(`Reference: ${page.headers['x-request-id']}`));
    for (const url of ['/v1/nowhere', '/v1']) {
      const api = await env.call('GET', url, { headers: BROWSER });
      assert.equal(api.statusCode, 404);
      assert.match(String(api.headers['content-type']), /^application\/json/);
      assert.equal(api.json().error.code, 'NOT_FOUND');
      assert.equal(api.headers['content-security-policy'], undefined);
    }
    // A client that does not ask for HTML keeps the error body of the API.
    const machine = await env.call('GET', '/claim/nowhere');
    assert.equal(machine.json().error.code, 'NOT_FOUND');
  });

  it('keeps the operations routes at the root, outside the web scope', async () => {
    const health = await env.call('GET', '/healthz');
    assert.deepEqual(health.json(), { status: 'ok' });
    assert.equal(health.headers['content-security-policy'], undefined);
    assert.equal((await env.call('GET', '/openapi.json')).statusCode, 200);
  });

  it('escapes every interpolated value, in text and in attributes', () => {
    const hostile = `<script>alert("x")</script> & 'quoted'`;
    assert.equal(
      escapeHtml(hostile),
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;',
    );
    const fragment = html`<p title="${hostile}">${hostile}</p>${html`<b>${'<i>'}</b>`}${null}${[1, '<', 2]}`;
    assert.equal(
      fragment.markup,
      `<p title="${escapeHtml(hostile)}">${escapeHtml(hostile)}</p><b>&lt;i&gt;</b>1&lt;2`,
    );
    const document = htmlDocument({ title: '</title><script>', body: html`<p>ok</p>` }).markup;
    assert.ok(document.includes('<title>&lt;/title&gt;&lt;script&gt; · '), document);
    assert.doesNotMatch(document, /<script>/);
  });
});

describe('the web scope: errors of a page', () => {
  let env: TestEnv;
  let app: App;
  before(async () => {
    env = await setupTest();
    app = await buildApp(env.ctx);
    // Under a prefix of its own: the app's web scope already serves /assets/.
    await app.register(
      webScope(env.ctx, [
        (scope) =>
          scope.get('/fails', async () => {
            throw new Error('secret detail at /work/main/src/whatever.ts:12');
          }),
      ]),
      { prefix: '/test-page' },
    );
    await app.ready();
  });
  after(async () => {
    await app.close();
    await env.close();
  });

  it('renders a failing page as the HTML 500 page, without the cause', async () => {
    const response = await app.inject({ method: 'GET', url: '/test-page/fails', headers: BROWSER });
    assertHtml(response, 500);
    assert.match(response.body, /Something went wrong/);
    assert.doesNotMatch(response.body, /secret|whatever\.ts/);
    assert.ok(response.body.includes(String(response.headers['x-request-id'])));
  });
});
