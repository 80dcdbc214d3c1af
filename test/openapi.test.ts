import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { registeredRoutes } from '../src/http/route-table.ts';
import { setupTest, type TestEnv } from './harness.ts';

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

/** POST and PATCH operations that take no body at all (everything else must declare one). */
const BODYLESS_WRITES = new Set([
  'startMfaEnrollment',
  'revokeEmailClaim',
  'verifyEmailClaim',
  'rotateWebhookSecret',
  'testWebhook',
  'retryWebhookDelivery',
  'cancelListing',
]);

describe('the OpenAPI document', () => {
  let env: TestEnv;
  let doc: Document;
  let operations: { method: string; path: string; op: Operation }[];
  before(async () => {
    env = await setupTest();
    const response = await env.call('GET', '/openapi.json');
    assert.equal(response.statusCode, 200);
    doc = response.json();
    operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
  });
  after(() => env.close());

  it('is valid OpenAPI 3.1', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('documents the /v1 operations and hides the operations endpoints', () => {
    assert.ok(operations.length >= 20, `${operations.length} operations`);
    for (const path of Object.keys(doc.paths)) assert.match(path, /^\/v1\//);
  });

  it('names every operation with a unique operationId, a summary and tags', () => {
    const ids = new Map<string, string>();
    for (const { method, path, op } of operations) {
      const where = `${method} ${path}`;
      assert.ok(op.operationId, `${where} has no operationId`);
      assert.match(op.operationId, /^[a-z][A-Za-z0-9]+$/, where);
      assert.ok(
        !ids.has(op.operationId),
        `${where} reuses operationId ${op.operationId} of ${ids.get(op.operationId)}`,
      );
      ids.set(op.operationId, where);
      assert.ok(op.summary && op.summary.trim().length > 0, `${where} has no summary`);
      assert.ok(Array.isArray(op.tags) && op.tags.length > 0, `${where} has no tags`);
    }
  });

  it('declares the schema of every success response', () => {
    for (const { method, path, op } of operations) {
      const where = `${method} ${path}`;
      const success = Object.keys(op.responses ?? {}).filter((s) => /^2\d\d$/.test(s));
      assert.equal(success.length, 1, `${where} should declare exactly one success status: ${success}`);
      const status = success[0]!;
      if (status === '204') {
        assert.equal(op.responses?.[status]?.content, undefined, `${where}: a 204 has no body`);
        continue;
      }
      const schema = op.responses?.[status]?.content?.['application/json']?.schema;
      assert.ok(schema && typeof schema === 'object', `${where} has no ${status} response schema`);
    }
  });

  it('declares the error responses with the shared error body', () => {
    for (const { method, path, op } of operations) {
      const where = `${method} ${path}`;
      const authenticated = Array.isArray(op.security) && op.security.length > 0;
      const expected = ['400', '500'];
      if (authenticated) expected.push('401', '403');
      if (path.includes('{')) expected.push('404');
      if (method === 'POST') expected.push('409', '429');
      for (const status of expected) {
        const schema = op.responses?.[status]?.content?.['application/json']?.schema;
        assert.deepEqual(schema, { $ref: '#/components/schemas/ErrorBody' }, `${where} lacks its ${status}`);
        assert.ok(op.responses?.[status]?.description, `${where}: ${status} has no description`);
      }
    }
  });

  it('marks public operations as needing no credentials and the others as needing some', () => {
    const routes = registeredRoutes(env.app);
    for (const { method, path, op } of operations) {
      const url = path.replace(/\{(\w+)\}/g, ':$1');
      const route = routes.find((r) => r.method === method && r.url === url);
      assert.ok(route, `${method} ${path} is documented but not registered`);
      // A claim link's holder proves it with the token in the path, a buyer with its intent's
      // client_token header (documented on the operation), not with credentials.
      const anonymous =
        route.access?.kind === 'public' ||
        route.access?.kind === 'claim_token' ||
        route.access?.kind === 'client_token';
      if (anonymous) assert.deepEqual(op.security, [], `${method} ${path}`);
      else assert.deepEqual(op.security, [{ bearerAuth: [] }, { apiKeyAuth: [] }], `${method} ${path}`);
    }
  });

  it('declares a request body schema for every POST, PUT and PATCH that takes one', () => {
    const routes = registeredRoutes(env.app);
    for (const { method, path, op } of operations) {
      const where = `${method} ${path}`;
      const route = routes.find((r) => r.method === method && r.url === path.replace(/\{(\w+)\}/g, ':$1'));
      if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') {
        assert.equal(op.requestBody, undefined, `${where} documents a body`);
        continue;
      }
      if (BODYLESS_WRITES.has(op.operationId ?? '')) {
        assert.equal(route?.hasBody, false, `${where} is listed as bodyless but takes a body`);
        continue;
      }
      const schema = op.requestBody?.content?.['application/json']?.schema as
        | { type?: string; additionalProperties?: unknown }
        | undefined;
      assert.ok(schema, `${where} has no request body schema (or add it to BODYLESS_WRITES)`);
      // Unknown fields are rejected (docs/api.md#conventions), so typos never pass silently.
      assert.equal(schema.type, 'object', where);
      assert.equal(schema.additionalProperties, false, `${where} body must set additionalProperties: false`);
    }
  });

  it('offers the Idempotency-Key header on every POST', () => {
    for (const { method, path, op } of operations.filter((o) => o.method === 'POST')) {
      assert.ok(
        op.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key'),
        `${method} ${path} does not document Idempotency-Key`,
      );
    }
  });

  it('resolves every $ref to a component', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    assert.ok(refs.length > 0);
    for (const ref of new Set(refs)) {
      const target = ref.slice('"$ref":"'.length, -1);
      assert.match(target, /^#\/components\/schemas\//, target);
      const name = target.slice('#/components/schemas/'.length);
      assert.ok(doc.components.schemas[name], `${target} does not resolve`);
    }
  });

  it('serves the interactive reference at /docs as HTML', async () => {
    const response = await env.call('GET', '/docs');
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.body, /<html/i);
  });
});
