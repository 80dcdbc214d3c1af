import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { getAddress } from 'viem';
import { buildApp } from '../src/app.ts';
import { createDatabase } from '../src/db/database.ts';
import type { App } from '../src/http/types.ts';
import { parseConfig } from '../src/lib/config.ts';
import { createLogger } from '../src/lib/logger.ts';
import { OPERATION_EXAMPLES } from '../src/wiring/examples.ts';
import { createServiceContext } from '../src/wiring/ports.ts';

interface Operation {
  operationId: string;
  tags?: string[];
  parameters?: { in: string; name: string; schema: object; example?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: object; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: object; example?: unknown }> }>;
}
interface Document {
  info: { description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object> };
}

/** The operations of a drop, in order, that the getting-started of `info.description` links. */
const DROP_STEPS = [
  'login',
  'createApiKey',
  'createCollection',
  'getDeploymentRequest',
  'createItem',
  'bulkCreateItems',
  'lockItems',
  'createMintRequests',
  'getMintRequest',
  'getTokenMetadata',
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** Every string in an example, with its JSON path. */
function* strings(value: unknown, path = ''): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* strings(v, `${path}/${i}`);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) yield* strings(v, `${path}/${k}`);
  }
}

/**
 * The examples of docs/openapi.json (each module's <group>.examples.ts, merged by src/wiring/examples.ts): one for every operation, each
 * valid against its operation's schemas, so the reference never shows a body the service refuses
 * or never sends. No database: the document is built as `npm run openapi` builds it.
 */
describe('the OpenAPI examples', () => {
  let app: App;
  let database: ReturnType<typeof createDatabase>;
  let doc: Document;
  let operations: { where: string; op: Operation }[];
  let ajv: Ajv2020;

  before(async () => {
    const config = parseConfig({
      DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
      SECRET_KEY: 'openapi-examples-test-only-openapi-examples-test-only',
      PUBLIC_BASE_URL: 'http://localhost:8080',
    });
    database = createDatabase(config.databaseUrl!, { max: 1 });
    app = await buildApp(createServiceContext(config, database.db, createLogger('silent')));
    await app.ready();
    doc = app.swagger() as unknown as Document;
    operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        where: `${op.operationId} (${method.toUpperCase()} ${path})`,
        op,
      })),
    );
    ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));
  });
  after(async () => {
    await app.close();
    await database.destroy();
  });

  /**
   * Validates against a schema of the document (its `#/components/schemas/…` refs resolved):
   * the problem, or undefined.
   */
  function check(schema: object, value: unknown, what: string): string | undefined {
    const validate = ajv.compile({ ...schema, components: doc.components });
    return validate(value) ? undefined : `${what}: ${ajv.errorsText(validate.errors, { separator: '; ' })}`;
  }

  function assertNone(problems: (string | undefined)[]) {
    const found = problems.filter((p) => p !== undefined);
    assert.deepEqual(found, [], found.join('\n'));
  }

  it('has an example for every operation (add it to the <group>.examples.ts of its module)', () => {
    const missing = operations.filter(({ op }) => !OPERATION_EXAMPLES[op.operationId]).map((o) => o.where);
    assert.deepEqual(missing, [], `operations without an example:\n${missing.join('\n')}`);
  });

  it('has no example for an operation the document does not have', () => {
    const known = new Set(operations.map(({ op }) => op.operationId));
    const stale = Object.keys(OPERATION_EXAMPLES).filter((id) => !known.has(id));
    assert.deepEqual(stale, [], `examples of unknown operations: ${stale.join(', ')}`);
  });

  it('gives every path parameter an example valid against its schema', () => {
    const problems = operations.flatMap(({ where, op }) =>
      (op.parameters ?? [])
        .filter((p) => p.in === 'path')
        .map((p) =>
          p.example === undefined
            ? `${where}: path parameter ${p.name} has no example`
            : check(p.schema, p.example, `${where}: path parameter ${p.name}`),
        ),
    );
    assertNone(problems);
  });

  it('gives a request example exactly to the operations that take a body, valid against its schema', () => {
    const problems = operations.map(({ where, op }) => {
      const body = op.requestBody?.content?.['application/json'];
      const example = OPERATION_EXAMPLES[op.operationId]?.request;
      if (!body?.schema)
        return example === undefined ? undefined : `${where} takes no body but has a request example`;
      if (body.example === undefined) return `${where} has no request example`;
      return check(body.schema, body.example, `${where}: request example`);
    });
    assertNone(problems);
  });

  it('gives a response example exactly to the success answers that have a body, valid against its schema', () => {
    const problems = operations.map(({ where, op }) => {
      const [status, success] = Object.entries(op.responses).find(([s]) => /^2\d\d$/.test(s)) ?? [];
      const content = success?.content?.['application/json'];
      const example = OPERATION_EXAMPLES[op.operationId]?.response;
      if (!content?.schema) {
        return example === undefined
          ? undefined
          : `${where}: its ${status} has no body but has a response example`;
      }
      if (content.example === undefined) return `${where} has no ${status} response example`;
      return check(content.schema, content.example, `${where}: ${status} response example`);
    });
    assertNone(problems);
  });

  it('shows an example in every operation, and every error example given is a valid error body of that status', () => {
    const problems = operations.flatMap(({ where, op }) => {
      const shown = JSON.stringify(op).includes('"example"');
      const errors = Object.entries(OPERATION_EXAMPLES[op.operationId]?.errors ?? {}).map(
        ([status, error]) => {
          const content = op.responses[status]?.content?.['application/json'];
          if (!content?.schema) return `${where}: an example of ${status}, which it does not answer`;
          return check(content.schema, error, `${where}: ${status} example`);
        },
      );
      return [shown ? undefined : `${where} shows no example`, ...errors];
    });
    assertNone(problems);
  });

  it('uses realistic values: UUIDv7 ids, EIP-55 addresses, timestamps with milliseconds', () => {
    for (const [operationId, example] of Object.entries(OPERATION_EXAMPLES)) {
      for (const [path, value] of strings(example)) {
        const where = `${operationId} ${path}`;
        if (UUID.test(value)) assert.equal(value[14], '7', `${where}: ${value} is not a UUIDv7`);
        if (ADDRESS.test(value)) assert.equal(value, getAddress(value), `${where}: ${value} is not EIP-55`);
        if (TIMESTAMP.test(value)) {
          assert.match(value, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, `${where}: ${value}`);
          assert.ok(!Number.isNaN(Date.parse(value)), `${where}: ${value}`);
        }
      }
    }
  });

  it('opens with a getting-started whose links reach the operations of a drop, in order', () => {
    const description = doc.info.description ?? '';
    const links = [...description.matchAll(/\]\(#\/([^/)]+)\/(\w+)\)/g)].map(([, tag, id]) => ({
      tag: decodeURIComponent(tag!),
      id: id!,
    }));
    for (const { tag, id } of links) {
      const found = operations.find(({ op }) => op.operationId === id);
      assert.ok(found, `the overview links ${id}, which the document does not have`);
      assert.equal(found.op.tags?.[0], tag, `the overview links ${id} under the wrong tag`);
    }
    const linked = links.map((l) => l.id);
    const positions = DROP_STEPS.map((id) => linked.indexOf(id));
    for (const [i, id] of DROP_STEPS.entries())
      assert.ok(positions[i]! >= 0, `the overview does not link ${id}`);
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => a - b),
      'the overview links the drop steps out of order',
    );
  });
});
