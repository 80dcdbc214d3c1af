import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTest, type TestEnv } from './harness.ts';

/**
 * Every input the API declares is bounded, so no request can make the service hold, validate or
 * store an unbounded value (the class behind a 100,000-item array stalling every tenant).
 *
 * The rule, over request bodies and query, path and header parameters:
 * - an array has `maxItems`;
 * - a string has `maxLength`, or an `enum` or `const`, or a `pattern` anchored at both ends
 *   (`^…$`) whose every repetition is bounded (`{n}`, `{n,m}`, `?`; no `*`, `+` or `{n,}`).
 *   A `format` alone bounds nothing: ajv-formats' date-time takes any number of fraction digits.
 * Operations that take big input (bulk create: 10,000 items) declare that bound as `maxItems`.
 */

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  prefixItems?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  not?: Schema;
  maxItems?: number;
  maxLength?: number;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
}
interface Parameter {
  in: string;
  name: string;
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** A pattern anchored at both ends with no unbounded repetition (escapes and classes skipped). */
export function isBoundedPattern(pattern: string): boolean {
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$')) return false;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '*' || c === '+') return false;
    else if (c === '{' && /^\{\d+,\}/.test(pattern.slice(i))) return false;
    // An alternation at the top level would leave one side unanchored.
    else if (c === '|' && depthAt(pattern, i) === 0) return false;
  }
  return true;
}

function depthAt(pattern: string, at: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < at; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
  }
  return depth;
}

function types(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  return schema.type ? [schema.type] : [];
}

/** The places under `schema` (reached from `at`) that break the rule. */
function unbounded(doc: Document, schema: Schema, at: string, seen: Set<string>): string[] {
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return [];
    const name = schema.$ref.replace('#/components/schemas/', '');
    return unbounded(
      doc,
      doc.components.schemas[name] ?? {},
      `${at}(${name})`,
      new Set([...seen, schema.$ref]),
    );
  }
  const found: string[] = [];
  const kinds = types(schema);
  if (kinds.includes('array') && schema.maxItems === undefined) found.push(`${at}: array without maxItems`);
  // A union (StringEnum: `anyOf` of `const`s) is bounded by its members, checked below.
  const members = schema.anyOf ?? schema.oneOf ?? [];
  const boundedString =
    members.length > 0 ||
    schema.maxLength !== undefined ||
    schema.enum !== undefined ||
    schema.const !== undefined ||
    (schema.pattern !== undefined && isBoundedPattern(schema.pattern));
  if (kinds.includes('string') && !boundedString) found.push(`${at}: string without maxLength`);
  for (const [name, inner] of Object.entries(schema.properties ?? {}))
    found.push(...unbounded(doc, inner, `${at}/${name}`, seen));
  for (const [name, inner] of Object.entries(schema.patternProperties ?? {}))
    found.push(...unbounded(doc, inner, `${at}/{${name}}`, seen));
  if (typeof schema.additionalProperties === 'object')
    found.push(...unbounded(doc, schema.additionalProperties, `${at}/*`, seen));
  if (schema.items) found.push(...unbounded(doc, schema.items, `${at}/[]`, seen));
  for (const [i, inner] of (schema.prefixItems ?? []).entries())
    found.push(...unbounded(doc, inner, `${at}/${i}`, seen));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    for (const inner of schema[key] ?? []) found.push(...unbounded(doc, inner, at, seen));
  return found;
}

describe('input bounds', () => {
  let env: TestEnv;
  let doc: Document;
  before(async () => {
    env = await setupTest();
    doc = env.app.swagger() as unknown as Document;
  });
  after(() => env.close());

  it('reads a bounded pattern as bounded and an open one as open', () => {
    assert.ok(isBoundedPattern('^0x[0-9a-fA-F]{40}$'));
    assert.ok(isBoundedPattern('^[0-9a-f]{8}-[0-9a-f]{4}$'));
    assert.ok(isBoundedPattern('^(a|b){1,3}$'));
    assert.ok(!isBoundedPattern('^[A-Za-z0-9.-]+$'));
    assert.ok(!isBoundedPattern('^[hH][tT][tT][pP][sS]?://'));
    assert.ok(!isBoundedPattern('^a{2,}$'));
    assert.ok(!isBoundedPattern('^a|b$'));
    assert.ok(!isBoundedPattern('^a\\$'));
  });

  it('bounds every array and string of every request body and parameter', () => {
    const found: string[] = [];
    let parameters = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        for (const parameter of op.parameters ?? [])
          if (parameter.schema && ++parameters)
            found.push(
              ...unbounded(doc, parameter.schema, `${where} ${parameter.in}:${parameter.name}`, new Set()),
            );
        for (const [type, content] of Object.entries(op.requestBody?.content ?? {}))
          if (content.schema)
            found.push(...unbounded(doc, content.schema, `${where} body(${type})`, new Set()));
      }
    }
    assert.ok(parameters > 50, `${parameters} parameters walked`);
    assert.deepEqual(found, [], `${found.length} unbounded inputs:\n${found.join('\n')}`);
  });
});
